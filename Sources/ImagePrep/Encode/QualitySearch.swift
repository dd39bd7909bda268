import Foundation

/// How to look for the JPEG quality that fits a byte budget.
public enum SearchStrategy: Sendable, Equatable {
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
    /// The smallest size seen, which is what the floor gives when nothing fits.
    public var smallestSize: Int
    public var encodes: Int
}

/// Finds the quality to write. `encode` is called once per distinct quality tried, never twice for the same one,
/// and the bytes returned for the chosen quality are what gets written: the size measured is the size written.
public func searchQuality(
    floor: Int, ceiling: Int, budget: Int, strategy: SearchStrategy,
    encode: (Int) throws -> [UInt8]
) rethrows -> SearchResult {
    precondition(floor <= ceiling, "quality floor above ceiling")
    var sizes: [Int: Int] = [:]
    var best: (quality: Int, bytes: [UInt8])?
    var encodes = 0
    func trial(_ q: Int) throws -> Bool {
        let bytes = try encode(q)
        encodes += 1
        sizes[q] = bytes.count
        let fits = bytes.count <= budget
        if fits, q > (best?.quality ?? Int.min) { best = (q, bytes) }
        return fits
    }

    switch strategy {
    case .step(let step):
        var q = ceiling
        while true {
            if try trial(q) { break }
            if q == floor { break }
            q = max(floor, q - max(step, 1))
        }
    case .binary:
        // Invariant: `low` fits (or is floor-1, untried) and `high` does not fit (or is ceiling+1).
        var low = floor - 1, high = ceiling + 1
        if try trial(ceiling) { low = ceiling } else { high = ceiling }
        while high - low > 1 {
            // Interpolation lands in 2-3 trials on smooth curves; on odd ones, stop trusting it and bisect.
            let q = encodes < 5 ? nextGuess(low: low, high: high, floor: floor, budget: budget, sizes: sizes)
                                : (low + high) / 2
            if try trial(q) { low = q } else { high = q }
        }
    }
    return SearchResult(fit: best, smallestSize: sizes.values.min() ?? 0, encodes: encodes)
}

/// Where to look next inside (low, high). Sizes of JPEG photos fall smoothly with libjpeg's
/// quantiser scale, roughly as a power law, so interpolating log(size) against log(scale) through
/// the two nearest measurements usually lands on the boundary; the answer then needs one more
/// encode to confirm q+1 is over. Falls back to bisection when there is nothing to interpolate.
func nextGuess(low: Int, high: Int, floor: Int, budget: Int, sizes: [Int: Int]) -> Int {
    let measured = sizes.keys.sorted()
    let predicted: Double?
    if let target = interpolate(measured: measured, sizes: sizes, budget: budget) {
        predicted = target
    } else {
        predicted = nil
    }
    guard var guess = predicted.map({ Int($0.rounded(.down)) }) else { return (low + high) / 2 }
    // Having just found the boundary on one side, check its neighbour rather than re-guessing.
    if sizes[low] != nil && guess <= low { guess = low + 1 }
    if sizes[high] != nil && guess >= high { guess = high - 1 }
    guess = min(max(guess, low + 1), high - 1)
    return max(guess, floor)
}

/// libjpeg's quality → quantiser scale (percent), see jpeg_quality_scaling.
func quantizerScale(_ q: Int) -> Double {
    let q = min(max(q, 1), 100)
    return q < 50 ? 5000 / Double(q) : Double(200 - 2 * q)
}

/// The continuous quality whose size is predicted to equal the budget.
private func interpolate(measured: [Int], sizes: [Int: Int], budget: Int) -> Double? {
    guard let anyQ = measured.first, let anySize = sizes[anyQ] else { return nil }
    func x(_ q: Int) -> Double { log(max(quantizerScale(q), 0.5)) }
    let y = log(Double(budget))
    let points: [(Double, Double)]
    if measured.count == 1 {
        // One measurement: assume size ∝ scale^-0.75, typical of photos (a guess the next trial corrects).
        let slope = -0.75
        let targetX = x(anyQ) + (y - log(Double(anySize))) / slope
        return quality(forLogScale: targetX)
    }
    // The two measurements closest to the budget in log size, on either side when possible.
    let below = measured.filter { sizes[$0]! <= budget }.min { abs(Double(sizes[$0]!) - Double(budget)) < abs(Double(sizes[$1]!) - Double(budget)) }
    let above = measured.filter { sizes[$0]! > budget }.min { abs(Double(sizes[$0]!) - Double(budget)) < abs(Double(sizes[$1]!) - Double(budget)) }
    let pair = [below, above].compactMap { $0 }
    let chosen = pair.count == 2 ? pair : Array(measured.sorted { abs(sizes[$0]! - budget) < abs(sizes[$1]! - budget) }.prefix(2))
    points = chosen.map { (x($0), log(Double(sizes[$0]!))) }
    guard points[0].0 != points[1].0 else { return nil }
    var slope = (points[1].1 - points[0].1) / (points[1].0 - points[0].0)
    if !(slope < -0.05) { slope = -0.75 }  // flat or inverted (non-monotonic) pair: fall back to the typical slope
    return quality(forLogScale: points[0].0 + (y - points[0].1) / slope)
}

private func quality(forLogScale x: Double) -> Double {
    let scale = exp(x)
    return scale <= 100 ? (200 - scale) / 2 : 5000 / scale
}
