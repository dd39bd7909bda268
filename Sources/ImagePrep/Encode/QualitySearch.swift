import Foundation

/// How to look for the JPEG quality that fits a byte budget.
public enum SearchStrategy: Sendable, Equatable, Codable {
    /// The highest quality q with size(q) ≤ budget and size(q+1) > budget, found by
    /// interpolating on the measured sizes and bisecting when interpolation stalls.
    case binary
    /// From the ceiling downward by `step` until one fits.
    case step(Int)
}

/// The outcome of a search: the encode that fits (if any) and what it cost.
public struct SearchResult: Sendable {
    /// The chosen quality and its encoded bytes, or nil when even the floor is over budget.
    public var fit: (quality: Int, bytes: [UInt8])?
    /// Every size measured, by quality.
    public var sizes: [Int: Int]
    public var encodes: Int

    /// The smallest size seen, which is what the floor gives when nothing fits.
    public var smallestSize: Int { sizes.values.min() ?? 0 }
}

/// Finds the quality to write. `encode` is called once per distinct quality tried, and the bytes returned
/// for the chosen quality are what gets written: the size measured is the size written.
/// - Parameters:
///   - hints: predicted sizes by quality (say, from the same picture at another size); they only
///     steer the first guess, never decide the answer.
///   - overhead: bytes every encode carries whatever the quality (metadata segments), left out of the
///     size model so a big EXIF block on a small picture does not flatten the curve.
public func searchQuality(
    floor: Int, ceiling: Int, budget: Int, strategy: SearchStrategy, model: SizeModel = .jpeg,
    hints: [Int: Int] = [:], overhead: Int = 0, encode: (Int) throws -> [UInt8]
) rethrows -> SearchResult {
    precondition(floor <= ceiling, "quality floor above ceiling")
    var sizes: [Int: Int] = [:]
    var best: (quality: Int, bytes: [UInt8])?
    func fits(_ q: Int) throws -> Bool {
        let bytes = try encode(q)
        sizes[q] = bytes.count
        let fits = bytes.count <= budget
        if fits, q > (best?.quality ?? Int.min) { best = (q, bytes) }
        return fits
    }

    switch strategy {
    case .step(let step):
        var q = ceiling
        while try !fits(q), q > floor {
            q = max(floor, q - max(step, 1))
        }
    case .binary:
        // Invariant: `low` fits (or is floor-1, untried) and `high` does not (or is ceiling+1, untried).
        var low = floor - 1, high = ceiling + 1
        var streak = 0, lastFit: Bool?
        // Without hints, try the ceiling first: it settles images that fit outright in one encode,
        // and its size anchors the interpolation.
        var q = hints.isEmpty ? ceiling
            : predictedBoundary(low: low, high: high, budget: budget, sizes: hints, model: model, overhead: overhead)
        while true {
            let fit = try fits(q)
            if fit { low = q } else { high = q }
            streak = fit == lastFit ? streak + 1 : 0
            lastFit = fit
            if high - low <= 1 { break }
            // Interpolation lands in 2-4 trials on photos; bisection is the safety net for odd curves.
            q = sizes.count < 7 ? predictedBoundary(low: low, high: high, budget: budget, sizes: sizes, model: model, overhead: overhead,
                                                    lowMovedLast: lastFit ?? true, streak: streak)
                                : (low + high) / 2
        }
    }
    return SearchResult(fit: best, sizes: sizes, encodes: sizes.count)
}

/// The quality inside (low, high) most likely to be the last that fits: regula falsi on log(size)
/// against log(the model's scale) between the bracket's ends, with the Illinois rule: the end kept while
/// the other moved `streak` more times in a row counts for less, so a curve that bends cannot make the
/// guesses crawl one quality at a time.
func predictedBoundary(low: Int, high: Int, budget: Int, sizes: [Int: Int], model: SizeModel = .jpeg,
                       overhead: Int = 0, lowMovedLast: Bool = true, streak: Int = 0) -> Int {
    func picture(_ bytes: Int) -> Double { log(Double(max(bytes - overhead, 1))) }
    let target = picture(budget)
    func point(_ q: Int) -> (x: Double, y: Double)? {
        sizes[q].map { (log(model.scale(q)), picture($0)) }
    }
    let typicalSlope = model.typicalSlope
    let x: Double
    switch (point(low), point(high)) {
    case let (under?, over?):
        // The end that has not moved lately is pulled toward the target (Illinois).
        let damping = pow(0.5, Double(max(streak, 0)))
        let yUnder = lowMovedLast ? under.y : target - (target - under.y) * damping
        let yOver = lowMovedLast ? target + (over.y - target) * damping : over.y
        x = yOver == yUnder ? (under.x + over.x) / 2 : under.x + (target - yUnder) * (over.x - under.x) / (yOver - yUnder)
    case let (known?, nil), let (nil, known?):
        x = known.x + (target - known.y) / typicalSlope
    case (nil, nil):
        // Only hints or nothing at the bracket's ends: extrapolate from the measurement nearest the budget.
        guard let nearest = sizes.keys.min(by: { abs(picture(sizes[$0]!) - target) < abs(picture(sizes[$1]!) - target) }),
              let known = point(nearest) else { return (low + high) / 2 }
        x = known.x + (target - known.y) / typicalSlope
    }
    return min(max(model.quality(atScale: exp(x)), low + 1), high - 1)
}
