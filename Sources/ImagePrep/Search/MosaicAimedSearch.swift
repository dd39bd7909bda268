/// A picture's score curve as its crop mosaic (ProbeMosaic) measured it, by quality. The whole picture
/// scores lower than its mosaic by an amount of its own (1-3 points on corpus photos), but near the answer
/// the two curves have the same shape: one trial on the whole picture places its whole curve.
struct MosaicCurve {
    /// The mosaic's scores measured, by quality (every quality of a same-setting range).
    let scores: [Int: Double]
    /// Points per quality where nothing measured says (the format's ScoreModel).
    let typicalSlope: Double
    /// The qualities that hand the encoder the same setting as one quality.
    var sameSetting: (Int) -> ClosedRange<Int> = { $0...$0 }

    /// The mosaic's score at `quality`: linear between the measured qualities around it, else along the
    /// slope of the two nearest on its side (the typical slope when that is flat or unknown).
    func score(_ quality: Int) -> Double {
        if let measured = scores[quality] { return measured }
        let below = scores.keys.filter { $0 < quality }.sorted(), above = scores.keys.filter { $0 > quality }.sorted()
        /// From the measured quality `a` along the slope from `b` to it (the typical slope without `b`).
        func along(_ a: Int, _ b: Int?) -> Double {
            var slope = typicalSlope
            if let b, let sa = scores[a], let sb = scores[b], a != b {
                let measured = (sb - sa) / Double(b - a)
                if measured > 0.05 { slope = measured }
            }
            return (scores[a] ?? 0) + slope * Double(quality - a)
        }
        switch (below.last, above.first) {
        case let (low?, high?):
            let (sLow, sHigh) = (scores[low] ?? 0, scores[high] ?? 0)
            return sLow + (sHigh - sLow) * Double(quality - low) / Double(high - low)
        case let (low?, nil):
            return along(low, below.dropLast().last)
        case let (nil, high?):
            return along(high, above.dropFirst().first)
        default:
            return 80 + typicalSlope * Double(quality - 80)
        }
    }

    /// How much the score rises from quality `a` to `b` along the curve, its slope held within half and
    /// one and a half times the typical one: a small mosaic's steps are noisy (on a WebP photo twice the
    /// whole picture's, and taking them wrote a quality two above the lowest, 15% larger; on a JPEG one a
    /// fifth, and the next trial landed five qualities off).
    /// Qualities are counted between the middles of their settings (one setting of HEIC spans two).
    func rise(from a: Int, to b: Int) -> Double {
        func middle(_ q: Int) -> Double { let range = sameSetting(q); return Double(range.lowerBound + range.upperBound) / 2 }
        let span = middle(b) - middle(a)
        guard span != 0 else { return 0 }
        let slope = (score(b) - score(a)) / span
        return min(max(slope, typicalSlope / 2), typicalSlope * 1.5) * span
    }
}

/// `--quality auto` on a whole picture, aimed by its mosaic's curve: usually one or two trials. The first
/// is the mosaic's answer; each trial places the mosaic's curve through the measured score (the nearest
/// one), and the next trial is where that curve first reaches the target. A quality that reaches the
/// target is taken when the quality below it misses, measured or as the placed curve predicts: so the
/// answer is the lowest quality that reaches the target or one above it, and it is always measured.
/// What three trials do not settle, the exact search (`searchScore`) finishes from what they measured.
func searchScoreAimed(
    floor: Int, ceiling: Int, target: Double, model: ScoreModel, curve: MosaicCurve, start: Int,
    sameSetting: (Int) -> ClosedRange<Int> = { $0...$0 }, giveUpAbove: Int? = nil,
    trial: (Int) throws -> (bytes: [UInt8], score: Double)
) rethrows -> ScoreSearchResult {
    precondition(floor <= ceiling, "quality floor above ceiling")
    // Each aimed trial re-places the curve, so a third still converges where the exact search would
    // first have to bracket the answer (5 trials on two device photos where the third settled it).
    let aimedTrialsAtMost = 3
    var known: [Int: (bytes: [UInt8], score: Double)] = [:]
    var trials = 0
    func range(_ q: Int) -> ClosedRange<Int> { sameSetting(q).clamped(to: floor...ceiling) }
    /// The whole picture's score at `q`: the measured score nearest `q`, plus the curve's rise from there.
    func predicted(_ q: Int) -> Double {
        guard let anchor = known.keys.min(by: { abs($0 - q) < abs($1 - q) || (abs($0 - q) == abs($1 - q) && $0 < $1) }),
              let measured = known[anchor] else { return curve.score(q) }
        return measured.score + curve.rise(from: anchor, to: q)
    }
    /// Whether `q` is the answer: it reaches the target, and the quality below its setting misses, as
    /// measured or as the placed curve predicts.
    func settles(_ q: Int) -> Bool {
        guard let measured = known[q], measured.score >= target else { return false }
        let below = range(q).lowerBound - 1
        guard below >= floor else { return true }
        if let belowMeasured = known[below] { return belowMeasured.score < target }
        return predicted(below) < target
    }
    var q = min(max(start, floor), ceiling)
    for _ in 0..<aimedTrialsAtMost {
        let measured = try trial(q)
        trials += 1
        for same in range(q) { known[same] = measured }
        if let answer = known.keys.filter(settles).min(), let result = known[answer] {
            return ScoreSearchResult(quality: answer, bytes: result.bytes, score: result.score, reached: true,
                                     scores: known.mapValues(\.score), trials: trials)
        }
        // Where the placed curve first reaches the target (the ceiling when it never does).
        let next = (floor...ceiling).first { predicted($0) >= target } ?? ceiling
        guard known[next] == nil else { break }
        if measured.score < target, let limit = giveUpAbove, measured.bytes.count > limit { break }
        q = next
    }
    var exact = try searchScore(floor: floor, ceiling: ceiling, target: target, model: model, sameSetting: sameSetting,
                                giveUpAbove: giveUpAbove, start: q, known: known, trial: trial)
    exact.trials += trials
    return exact
}
