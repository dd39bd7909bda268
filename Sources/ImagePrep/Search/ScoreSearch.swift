import Foundation

/// What a score search settles for one encoder.
public struct ScoreSearchResult: Sendable {
    /// The lowest quality that reaches the target, its bytes and score; when none does (or the search gave
    /// up, see `giveUpAbove`), the highest quality tried.
    public var quality: Int
    public var bytes: [UInt8]
    public var score: Double
    public var reached: Bool
    /// Every score measured, by quality.
    public var scores: [Int: Double]
    /// Encodes made and scored.
    public var trials: Int
    /// The size of the draft `bytes` were written again from (ImageEncoding.scoringDraft), if any: what
    /// other drafts compare with.
    public var draftSize: Int? = nil
}

/// Finds the lowest quality in `floor...ceiling` whose encode scores at least `target`, one trial at a
/// time (so the trials and the answer never depend on threads): the first at the format's prior, then the
/// crossing predicted through the scores measured (secant; the prior's slope from one side only), bisecting
/// when prediction stalls; it stops when q reaches the target and q-1 does not (or the range ends).
/// - Parameters:
///   - sameSetting: the qualities that give the same bytes as one quality (one trial settles them all).
///   - giveUpAbove: a size no answer may reach (another encoder's answer): a quality that misses the
///     target at more bytes settles that no quality above it can win, and the search ends there.
///   - start: the first quality to try, when something better than the prior knows (another layout's answer).
///   - known: trials already made, by quality: where the search starts from, not counted.
///   - trial: encodes and scores one quality.
public func searchScore(
    floor: Int, ceiling: Int, target: Double, model: ScoreModel,
    sameSetting: (Int) -> ClosedRange<Int> = { $0...$0 }, giveUpAbove: Int? = nil, start: Int? = nil,
    known: [Int: (bytes: [UInt8], score: Double)] = [:],
    trial: (Int) throws -> (bytes: [UInt8], score: Double)
) rethrows -> ScoreSearchResult {
    precondition(floor <= ceiling, "quality floor above ceiling")
    var scores: [Int: Double] = [:]
    var encoded: [Int: [UInt8]] = [:]
    var trials = 0
    // Invariant: `low` misses the target (or is floor-1, untried), `high` reaches it (or is ceiling+1).
    var low = floor - 1, high = ceiling + 1
    // Which end each trial moved (true: low): a curve bending away from the secant moves one end only.
    var moves: [Bool] = []
    var gaveUp = false
    func clampInside(_ q: Int) -> Int { min(max(q, low + 1), high - 1) }
    /// The crossing predicted from what is known: between two measured ends, linear in quality (bisecting
    /// once the same end has moved twice running: the curve bends, and the secant would crawl); from one
    /// side, along the slope of the two nearest scores there (else the prior's), aiming to land across it.
    func next(low: Int, high: Int) -> Int {
        if scores[low] != nil, scores[high] != nil, moves.count >= 2, moves[moves.count - 1] == moves[moves.count - 2] {
            return (low + high + 1) / 2
        }
        let slope: (Int, Int) -> Double = { a, b in
            guard let sa = scores[a], let sb = scores[b], a != b else { return model.pointsPerQuality }
            let s = (sb - sa) / Double(b - a)
            return s > 0.05 ? s : model.pointsPerQuality
        }
        switch (scores[low], scores[high]) {
        case let (sLow?, sHigh?) where sHigh > sLow:
            let crossing = Double(low) + (target - sLow) / (sHigh - sLow) * Double(high - low)
            return Int(crossing.rounded(.up))
        case let (sLow?, _):
            let below = scores.keys.filter { $0 < low }.max() ?? low
            return low + Int(((target - sLow) / slope(below, low)).rounded(.up))
        case let (_, sHigh?):
            let above = scores.keys.filter { $0 > high }.min() ?? high
            // Scores flatten as quality rises, so the slope above overstates the one below: step a quarter
            // further, past the crossing, to bracket it.
            return high - max(1, Int((1.25 * (sHigh - target) / slope(high, above)).rounded(.up)))
        default:
            return (low + high) / 2
        }
    }
    for (quality, made) in known.sorted(by: { $0.key < $1.key }) where (floor...ceiling).contains(quality) {
        let range = sameSetting(quality).clamped(to: floor...ceiling)
        for same in range { scores[same] = made.score }
        encoded[quality] = made.bytes
        if made.score >= target {
            high = min(high, range.lowerBound)
            encoded[range.lowerBound] = made.bytes
        } else {
            low = max(low, range.upperBound)
            if let limit = giveUpAbove, made.bytes.count > limit { gaveUp = true }
        }
    }
    var q = start.map { min(max($0, floor), ceiling) } ?? model.firstGuess(target: target, in: floor...ceiling)
    if high - low > 1 { q = clampInside(q) }
    while !gaveUp, high - low > 1 {
        let range = sameSetting(q).clamped(to: floor...ceiling)
        let measured: (bytes: [UInt8], score: Double)
        if let made = known[q] { measured = made } else { measured = try trial(q); trials += 1 }
        for same in range { scores[same] = measured.score }
        encoded[q] = measured.bytes
        moves.append(measured.score < target)
        if measured.score >= target {
            high = range.lowerBound
            encoded[high] = measured.bytes
        } else {
            low = range.upperBound
            if let limit = giveUpAbove, measured.bytes.count > limit { gaveUp = true; break }
        }
        guard high - low > 1 else { break }
        q = clampInside(next(low: low, high: high))
    }
    if !gaveUp, high <= ceiling, let bytes = encoded[high], let score = scores[high] {
        return ScoreSearchResult(quality: high, bytes: bytes, score: score, reached: true, scores: scores, trials: trials)
    }
    // Nothing tried reaches the target: the highest tried is the closest.
    let top = encoded.keys.max() ?? ceiling
    return ScoreSearchResult(quality: top, bytes: encoded[top] ?? [], score: scores[top] ?? -.infinity, reached: false,
                             scores: scores, trials: trials)
}

/// `--quality auto` for one output: the score search with each encoder worth trying (both chroma layouts
/// where the format's ScoreModel says so), the smaller answer written; under a byte budget the budget is
/// the ceiling.
struct ScoreSearch {
    let job: EncodingJob
    let target: ScoreTarget
    let model: ScoreModel
    /// Another encoder of the same format to search (the other chroma layout), if any.
    let alternative: (any ImageEncoding)?
    /// The size another format reached the target in, if any: a quality that misses it at more bytes ends
    /// the search, and a picture whose mosaic predicts over `outclassedAbove` times as many is not searched.
    var toBeat: Int? = nil

    /// How much larger than `toBeat` a mosaic's prediction may be and still be searched: on the 11 device
    /// photos at 2048 pixels, predictions were within 17% of the size the search then found (JPEG, WebP
    /// and AVIF), and no format this margin left out would have been the smallest.
    static let outclassedAbove = 1.25

    var floor: Int { min(job.settings.budget?.minQuality ?? target.minQuality, job.settings.quality) }

    func run(sizeHints: [Int: Int]) throws -> PreparedImage {
        let picture = job.picture
        let (metadata, notes) = job.metadata(for: picture)
        let scorer = try job.scorers.scorer(for: picture, profile: metadata.icc, maxPixels: job.settings.maxPixels, threads: job.threads)
        /// One trial of the whole picture: `encoder`'s encode at a quality (its draft's, when it has one), and its score.
        func trial(_ encoder: any ImageEncoding) -> (Int) throws -> (bytes: [UInt8], score: Double) {
            let drafting = encoder.scoringDraft ?? encoder
            let input = picture.prepared(for: drafting)
            return { q in
                let bytes = try drafting.encode(input, quality: q, metadata: metadata)
                return (bytes, try scorer.score(bytes))
            }
        }
        /// A search's answer as `encoder` writes it: its draft's trials were only for scoring. So every size
        /// compared after a search is a real one; within it, a draft's larger sizes can only give up sooner.
        var rewritten = 0   // answers written again after a draft's trials
        func finished(_ result: ScoreSearchResult, by encoder: any ImageEncoding) throws -> ScoreSearchResult {
            guard encoder.scoringDraft != nil, !result.bytes.isEmpty else { return result }
            rewritten += 1
            var result = result
            result.draftSize = result.bytes.count
            result.bytes = try encoder.encode(picture.prepared(for: encoder), quality: result.quality, metadata: metadata)
            return result
        }
        func search(_ encoder: any ImageEncoding, giveUpAbove: Int? = nil, start: Int? = nil, ceiling: Int? = nil,
                    known: [Int: (bytes: [UInt8], score: Double)] = [:]) throws -> ScoreSearchResult {
            try finished(searchScore(floor: floor, ceiling: ceiling ?? job.settings.quality, target: target.score, model: model,
                                    sameSetting: Self.sameSetting(of: encoder), giveUpAbove: giveUpAbove, start: start,
                                    known: known, trial: trial(encoder)), by: encoder)
        }
        // The mosaic of each layout worth trying (one mosaic and one reference for all of them); the whole
        // picture is tried in the layout predicted smaller.
        let layouts = [job.encoder] + (model.searchesChromaLayouts ? [alternative].compactMap { $0 } : [])
        var probes: [(index: Int, probe: MosaicProbe)] = []
        if let mosaic = ProbeMosaic(picture) {
            let mosaicScorer = try job.scorers.mosaicScorer(for: mosaic.picture, profile: metadata.icc,
                                                            maxPixels: job.settings.maxPixels, threads: job.threads)
            for (index, layout) in layouts.enumerated() {
                if let probe = try mosaicProbe(layout, on: mosaic, scorer: mosaicScorer, metadata: metadata) {
                    probes.append((index, probe))
                }
            }
        }
        let chosen = probes.min { $0.probe.bytes < $1.probe.bytes }
        if let toBeat, let bytes = chosen?.probe.bytes, bytes > Double(toBeat) * Self.outclassedAbove {
            throw OutclassedFormat(predictedBytes: Int(bytes), toBeat: toBeat)
        }
        var best: ScoreSearchResult
        var trials = 0
        var sizedOnly = 0   // encodes made to learn a size, never scored
        let other: (any ImageEncoding)?
        if let chosen {
            let encoder = layouts[chosen.index]
            best = try finished(searchScoreAimed(floor: floor, ceiling: job.settings.quality, target: target.score, model: model,
                                                curve: chosen.probe.curve, start: chosen.probe.quality,
                                                sameSetting: Self.sameSetting(of: encoder), giveUpAbove: toBeat, trial: trial(encoder)),
                               by: encoder)
            trials = best.trials
            other = chosen.index == 0 ? alternative : job.encoder
        } else {
            best = try search(job.encoder, giveUpAbove: toBeat)
            trials = best.trials
            other = alternative
            if let alternative, best.reached, model.searchesChromaLayouts {
                // Sized by drafts where the encoder has one, against the draft of `best`.
                let draft = best.draftSize == nil ? nil : alternative.scoringDraft
                let sizing = draft ?? alternative
                let (smallerOne, scored, sized) = try smaller(than: best.draftSize ?? best.bytes.count, quality: best.quality,
                                                              with: sizing, input: picture.prepared(for: sizing),
                                                              metadata: metadata, scorer: scorer) { q, known in
                    try search(alternative, start: q - 1, ceiling: q, known: known)
                }
                trials += scored
                sizedOnly = sized
                if let smallerOne {
                    // An answer found below by the search is written in full already; one taken as sized is a draft.
                    best = draft != nil && smallerOne.draftSize == nil ? try finished(smallerOne, by: alternative) : smallerOne
                }
            }
        }
        if let other, !best.reached {
            // Bounded by the same size: a search that gave up at it need not be outdone in the other layout.
            let second = try search(other, giveUpAbove: toBeat, start: best.quality)
            trials += second.trials
            if second.reached || second.score > best.score { best = second }
        }
        var written = notes
        if let budget = job.settings.budget, best.bytes.count > budget.maxBytes, let sizeModel = job.encoder.traits.sizeModel {
            // The target does not fit: the budget search's answer, below the quality that reached it.
            var settings = job.settings
            settings.quality = max(floor, min(best.quality, settings.quality))
            let capped = EncodingJob(picture: picture, encoder: job.encoder, source: job.source, settings: settings,
                                     threads: job.threads, warnings: [], scorers: job.scorers)
            var fitted = try BudgetSearch(job: capped, budget: budget, model: sizeModel).run(sizeHints: sizeHints)
            let score = fitted.width == picture.width && fitted.height == picture.height ? try scorer.score(fitted.bytes) : nil
            let reached = score.map { String(format: "%.1f", $0) } ?? "not measured (the picture was shrunk)"
            fitted.warnings = job.warnings + fitted.warnings
                + ["the target score \(Self.formatted(target.score)) does not fit \(budget.formatted): wrote quality \(fitted.quality ?? 0), score \(reached)"]
            fitted.encodes += trials + sizedOnly + rewritten
            fitted.scores = trials + (score == nil ? 0 : 1)
            fitted.score = score
            return fitted
        }
        if !best.reached, let exact = job.encoder.alternative, !exact.traits.isLossy,
           case let bytes = try exact.encode(picture.prepared(for: exact), quality: best.quality, metadata: metadata),
           bytes.count <= job.settings.budget?.maxBytes ?? Int.max {
            // A lossy mode of a lossless format (a palette PNG) that cannot reach the target: the lossless file.
            var prepared = job.prepared(picture, bytes, quality: nil, encodes: trials + sizedOnly + rewritten + 1, notes: written)
            prepared.score = try scorer.score(bytes)
            prepared.scores = trials + 1
            return prepared
        }
        if !best.reached {
            written.append("quality \(best.quality) scores \(String(format: "%.1f", best.score)), below the target \(Self.formatted(target.score)): the highest the search may use")
        }
        var prepared = job.prepared(picture, best.bytes, quality: best.quality, encodes: trials + sizedOnly + rewritten, notes: written)
        prepared.score = best.score
        prepared.scores = trials
        return prepared
    }

    /// What the picture's crop mosaic (ProbeMosaic: a sixteenth of its pixels, at full resolution) tells of
    /// `encoder` in the same search, where scoring costs a sixteenth: crops keep the picture's texture at
    /// its scale, so the whole picture's answer is usually the same or one off. nil when the mosaic misses
    /// the target at every quality. `scorer` scores encodes of the mosaic.
    func mosaicProbe(_ encoder: any ImageEncoding, on mosaic: ProbeMosaic, scorer: CandidateScorer,
                     metadata: ImageMetadata) throws -> MosaicProbe? {
        let pictureEncoder = encoder.pictureEncoder
        let input = mosaic.picture.prepared(for: pictureEncoder)
        // The profile alone: each decode is then read in the same colours as the reference.
        let colours = ImageMetadata(icc: metadata.icc)
        let aim = min(target.score + model.mosaicScoresAbove, 100)
        var sizes: [Int: Int] = [:]
        let sameSetting = Self.sameSetting(of: pictureEncoder)
        let answer = try searchScore(floor: floor, ceiling: job.settings.quality, target: aim, model: model,
                                     sameSetting: sameSetting) { q in
            let bytes = try pictureEncoder.encode(input, quality: q, metadata: colours)
            sizes[q] = bytes.count
            return (bytes, try scorer.score(bytes))
        }
        guard answer.reached else { return nil }
        // The mosaic's size where its curve crosses the aim, between its answer and the quality below: two
        // layouts compared at their answers alone differ by a quality step's bytes (3-4% for JPEG) as often
        // as by what sets them apart.
        var mosaicBytes = Double(answer.bytes.count)
        let below = sameSetting(answer.quality).lowerBound - 1
        if let sBelow = answer.scores[below], let bBelow = sizes[below], answer.score > sBelow {
            let share = min(max((aim - sBelow) / (answer.score - sBelow), 0), 1)
            mosaicBytes = Double(bBelow) + share * Double(answer.bytes.count - bBelow)
        }
        // Bytes per pixel of the mosaic, over the whole picture, with the metadata it will carry.
        let pictureBytes = max(mosaicBytes - Double(pictureEncoder.metadataBytes(colours)), 0) * mosaic.areaRatio
        return MosaicProbe(quality: answer.quality, bytes: pictureBytes + Double(encoder.metadataBytes(metadata)),
                           curve: MosaicCurve(scores: answer.scores, typicalSlope: model.pointsPerQuality, sameSetting: sameSetting))
    }

    /// The other chroma layout's answer, when it is smaller than `best` at the target (nil otherwise), and
    /// the encodes it scored. Sizes grow with quality, so that layout can win only at its highest quality
    /// whose encode is still smaller than `best`: found by encoding alone (cheap beside decoding and
    /// scoring), that one quality's score settles whether it wins. Only then is the lowest quality reaching
    /// the target searched below it. Same answer as searching the layout in full, in one scored encode
    /// when it loses (about half the corpus photos, each way by a few percent). Also returns the encodes
    /// made only to learn their size.
    func smaller(than bestSize: Int, quality bestQuality: Int, with encoder: any ImageEncoding, input: DecodedPixels, metadata: ImageMetadata,
                 scorer: CandidateScorer,
                 searchBelow: (Int, [Int: (bytes: [UInt8], score: Double)]) throws -> ScoreSearchResult)
        throws -> (ScoreSearchResult?, scored: Int, sized: Int) {
        let ceiling = job.settings.quality
        var sizes: [Int: [UInt8]] = [:]
        func encoded(_ q: Int) throws -> [UInt8] {
            if let known = sizes[q] { return known }
            let bytes = try encoder.encode(input, quality: q, metadata: metadata)
            sizes[q] = bytes
            return bytes
        }
        // The highest quality in floor...ceiling whose encode is smaller than `best`, stepping from where
        // that layout usually reaches the same score.
        var q = min(max(bestQuality - model.otherLayoutBelow, floor), ceiling)
        if try encoded(q).count < bestSize {
            while q < ceiling, try encoded(q + 1).count < bestSize { q += 1 }
        } else {
            while q > floor, try encoded(q).count >= bestSize { q -= 1 }
            guard try encoded(q).count < bestSize else { return (nil, 0, sizes.count) }
        }
        let candidate = (bytes: try encoded(q), score: try scorer.score(try encoded(q)))
        guard candidate.score >= target.score else { return (nil, 1, sizes.count - 1) }
        guard q > floor else {
            return (ScoreSearchResult(quality: q, bytes: candidate.bytes, score: candidate.score, reached: true,
                                      scores: [q: candidate.score], trials: 1), 1, sizes.count - 1)
        }
        let below = try searchBelow(q, [q: candidate])
        return (below, 1 + below.trials, sizes.count - 1)
    }

    /// The qualities that give `encoder` the same setting as one quality (one trial settles them all).
    static func sameSetting(of encoder: any ImageEncoding) -> (Int) -> ClosedRange<Int> {
        let sizeModel = encoder.traits.sizeModel
        return { q in sizeModel?.sameSetting(as: q) ?? q...q }
    }

    static func formatted(_ score: Double) -> String {
        score == score.rounded() ? String(Int(score)) : String(format: "%.1f", score)
    }
}

/// A mosaic's answer for one encoder: its quality, the whole picture's size that predicts, and its curve.
struct MosaicProbe {
    let quality: Int
    let bytes: Double
    let curve: MosaicCurve
}

/// `--to auto`: this format's prediction is far larger than another format's answer, so it was not searched.
struct OutclassedFormat: Error {
    let predictedBytes: Int
    let toBeat: Int
}
