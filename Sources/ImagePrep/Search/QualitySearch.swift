import Foundation

/// How to look for the quality that fits a byte budget.
public enum SearchStrategy: Sendable, Equatable, Codable {
    /// The highest quality q with size(q) ≤ budget and size(q+1) > budget, found by predicting the
    /// boundary from the measured sizes (and hints) and bisecting when prediction stalls.
    case binary
    /// From the ceiling downward by `step` until one fits.
    case step(Int)
}

/// The outcome of a search: the encode that fits (if any) and what it cost.
public struct SearchResult: Sendable {
    /// The chosen quality and its encoded bytes, or nil when even the floor is over budget.
    public var fit: (quality: Int, bytes: [UInt8])?
    /// Every size known, by quality: measured, or given by a quality with the same encoder setting.
    public var sizes: [Int: Int]
    /// Encodes made (qualities with the same setting cost one; those made ahead on a second lane count).
    public var encodes: Int

    /// The smallest size seen, which is what the floor gives when nothing fits.
    public var smallestSize: Int { sizes.values.min() ?? 0 }
}

/// Finds the quality to write, one encode at a time. See `searchQuality(floor:ceiling:budget:strategy:model:hints:overhead:lanes:encodeAll:)`.
public func searchQuality(
    floor: Int, ceiling: Int, budget: Int, strategy: SearchStrategy, model: SizeModel,
    hints: [Int: Int] = [:], overhead: Int = 0, encode: (Int) throws -> [UInt8]
) rethrows -> SearchResult {
    try searchQuality(floor: floor, ceiling: ceiling, budget: budget, strategy: strategy, model: model, hints: hints,
                      overhead: overhead, lanes: 1) { qualities in try qualities.map(encode) }
}

/// Finds the quality to write. `encodeAll` encodes the qualities it is given (at most `lanes` at once,
/// each tried once) and the bytes of the chosen quality are what gets written: the size measured is the
/// size written.
///
/// The trials and the answer are those of a one-lane search whatever `lanes` is, so the output never
/// depends on idle cores: a second lane only encodes ahead the quality the search will most likely ask
/// for next (across the predicted boundary), and those bytes are used if and when it asks for them.
/// - Parameters:
///   - hints: predicted sizes by quality (a probe of the picture, the same picture at another size, a
///     JPEG source's own quality and size); they aim the trials, never decide the answer.
///   - overhead: bytes every encode carries whatever the quality (metadata), left out of the size
///     model so a big EXIF block on a small picture does not flatten the curve.
///   - lanes: how many qualities may be encoded side by side (idle cores); changes the time, not the result.
///   - known: encodes already made of this picture, by quality: used when the search asks for them.
public func searchQuality(
    floor: Int, ceiling: Int, budget: Int, strategy: SearchStrategy, model: SizeModel,
    hints: [Int: Int] = [:], overhead: Int = 0, lanes: Int, known: [Int: [UInt8]] = [:],
    encodeAll: ([Int]) throws -> [[UInt8]]
) rethrows -> SearchResult {
    precondition(floor <= ceiling, "quality floor above ceiling")
    var sizes: [Int: Int] = [:]
    var best: (quality: Int, bytes: [UInt8])?
    var encodes = 0, trials = 0
    var encodedAhead = known
    /// Measures `q` (encoding `ahead` beside it on a second lane, for later); returns whether it fits.
    /// Qualities that give the encoder the same setting give the same bytes, so one encode measures them
    /// all (and the highest that fits is the answer).
    func measure(_ q: Int, ahead: Int? = nil) throws -> Bool {
        let setting = model.sameSetting(as: q)
        let bytes: [UInt8]
        if let key = encodedAhead.keys.first(where: { setting.contains($0) }), let known = encodedAhead.removeValue(forKey: key) {
            bytes = known
        } else {
            let extra = ahead.flatMap { next in
                setting.contains(next) || encodedAhead.keys.contains { model.sameSetting(as: next).contains($0) } ? nil : next
            }
            let encoded = try encodeAll([q] + (extra.map { [$0] } ?? []))
            encodes += encoded.count
            bytes = encoded[0]
            if let extra, encoded.count > 1 { encodedAhead[extra] = encoded[1] }
        }
        trials += 1
        let fits = bytes.count <= budget
        for same in setting.clamped(to: floor...ceiling) {
            sizes[same] = bytes.count
            if fits, same > (best?.quality ?? Int.min) { best = (same, bytes) }
        }
        return fits
    }

    switch strategy {
    case .step(let step):
        var q = ceiling
        while try !measure(q), q > floor {
            // The next step down, skipping qualities that give the same bytes as this one.
            q = max(floor, min(q - max(step, 1), model.sameSetting(as: q).lowerBound - 1))
        }
    case .binary:
        // Invariant: `low` fits (or is floor-1, untried) and `high` does not (or is ceiling+1, untried).
        var low = floor - 1, high = ceiling + 1
        var streak = 0, lastFit: Bool?
        let estimate = SizeEstimate(model: model, budget: budget, overhead: overhead, hints: hints)
        while high - low > 1 {
            let predicted = trials < 7 ? estimate.boundary(low: low, high: high, measured: sizes,
                                                            lowMovedLast: lastFit ?? true, streak: streak)
                                       : (low + high) / 2   // interpolation has stalled: bisect
            // Without hints or measurements, try the ceiling: a picture that fits outright costs one encode.
            let q = predicted ?? ceiling
            var ahead: Int?
            if lanes > 1, predicted != nil {
                // The other side of the predicted boundary: what the search asks next when the guess was close.
                let setting = model.sameSetting(as: q)
                if setting.upperBound + 1 < high { ahead = setting.upperBound + 1 }
                else if setting.lowerBound - 1 > low { ahead = setting.lowerBound - 1 }
            }
            let fits = try measure(q, ahead: ahead)
            let (lowBefore, highBefore) = (low, high)
            let same = model.sameSetting(as: q).clamped(to: floor...ceiling)
            if fits {
                if let top = same.last(where: { $0 > low && $0 < high }) { low = top }
            } else if let bottom = same.first(where: { $0 > low && $0 < high }) {
                high = bottom
            }
            let moved = low != lowBefore ? true : high != highBefore ? false : nil
            streak = moved != nil && moved == lastFit ? streak + 1 : 0
            lastFit = moved ?? lastFit
        }
    }
    return SearchResult(fit: best, sizes: sizes, encodes: encodes)
}

/// What the search believes size(q) to be: the shape from the hints (or the model's typical slope),
/// pulled through the sizes measured at the bracket's ends.
struct SizeEstimate {
    let model: SizeModel
    let budget: Int
    let overhead: Int
    let hints: [Int: Int]

    private func y(_ bytes: Int) -> Double { log(Double(max(bytes - overhead, 1))) }
    private func x(_ q: Int) -> Double { log(model.scale(q)) }

    /// The shape: log(picture bytes) against log(scale), piecewise linear through the hints (or, without
    /// hints, through the sizes measured so far) and extended past its ends along the end segment's slope
    /// when that spans a few qualities and looks like a photo's, else the typical slope.
    private func shape(_ xq: Double, measured: [Int: Int]) -> Double {
        let source = hints.isEmpty ? measured : hints
        let points = source.map { (q: $0.key, x: x($0.key), y: y($0.value)) }.sorted { $0.x < $1.x }
        guard let first = points.first, let last = points.last else { return model.typicalSlope * xq }
        func slope(_ a: (q: Int, x: Double, y: Double), _ b: (q: Int, x: Double, y: Double)) -> Double {
            guard abs(a.q - b.q) >= 3, b.x != a.x else { return model.typicalSlope }
            return plausible((b.y - a.y) / (b.x - a.x)) ?? model.typicalSlope
        }
        if xq <= first.x { return first.y + (xq - first.x) * (points.count > 1 ? slope(first, points[1]) : model.typicalSlope) }
        if xq >= last.x { return last.y + (xq - last.x) * (points.count > 1 ? slope(points[points.count - 2], last) : model.typicalSlope) }
        let upper = points.firstIndex { $0.x >= xq } ?? points.count - 1
        let (a, b) = (points[max(upper - 1, 0)], points[upper])
        return b.x == a.x ? a.y : a.y + (xq - a.x) * (b.y - a.y) / (b.x - a.x)
    }

    /// log(size) along the line through the size measured at `end` and the nearest other one beyond it
    /// (both over budget, or both under), when that line's slope looks like a photo's.
    private func secant(from end: Int, measured: [Int: Int]) -> ((Double) -> Double)? {
        guard let endBytes = measured[end] else { return nil }
        let over = endBytes > budget
        let beyond = measured.filter { ($0.value > budget) == over && $0.value != endBytes && ($0.key > end) == over }
        guard let next = beyond.min(by: { abs($0.key - end) < abs($1.key - end) }) else { return nil }
        let (x0, y0, x1, y1) = (x(end), y(endBytes), x(next.key), y(next.value))
        guard x1 != x0 else { return nil }
        guard let slope = plausible((y1 - y0) / (x1 - x0)) else { return nil }
        return { y0 + ($0 - x0) * slope }
    }

    /// A measured slope within 0.4x-2.5x the typical one (the spread of corpus photos), else nil: two
    /// sizes a quality or two apart can differ by noise alone.
    private func plausible(_ slope: Double) -> Double? {
        (0.4...2.5).contains(slope / model.typicalSlope) ? slope : nil
    }

    /// The quality in (low, high) most likely to be the last that fits, or nil with nothing to go on.
    /// Between two measured ends, the shape's error is interpolated linearly (with no hints that is regula
    /// falsi); the Illinois rule pulls an end that has not moved for `streak` rounds toward the budget, so
    /// a bending curve cannot make the guesses crawl one quality at a time.
    func boundary(low: Int, high: Int, measured: [Int: Int], lowMovedLast: Bool = true, streak: Int = 0) -> Int? {
        let target = y(budget)
        let damping = pow(0.5, Double(max(streak, 0)))
        func end(_ q: Int, stale: Bool) -> (x: Double, error: Double)? {
            guard let bytes = measured[q] else { return nil }
            let level = stale ? target + (y(bytes) - target) * damping : y(bytes)
            return (x(q), level - shape(x(q), measured: measured))
        }
        let lowEnd = end(low, stale: !lowMovedLast), highEnd = end(high, stale: lowMovedLast)
        guard !hints.isEmpty || lowEnd != nil || highEnd != nil else { return nil }
        /// The highest quality predicted to fit; if none is, the lowest (its encode says how far off we are).
        func highestFitting(_ predicted: (Double) -> Double) -> Int {
            stride(from: high - 1, to: low, by: -1).first { predicted(x($0)) <= target } ?? low + 1
        }
        if lowEnd == nil || highEnd == nil, let secant = secant(from: lowEnd != nil ? low : high, measured: measured) {
            // One side measured twice: its own slope beats any typical one for the step across.
            return highestFitting(secant)
        }
        func error(at xq: Double) -> Double {
            switch (lowEnd, highEnd) {
            case let (a?, b?) where a.x != b.x: a.error + (xq - a.x) * (b.error - a.error) / (b.x - a.x)
            case let (a?, _): a.error
            case let (nil, b?): b.error
            case (nil, nil): 0
            }
        }
        return highestFitting { shape($0, measured: measured) + error(at: $0) }
    }
}
