import Foundation

/// Why a gain map's values cannot be carried, naming the value: the map is left out with this as
/// the warning.
struct GainMapProblem: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The one check every gain-map value goes through, whatever stated it (hdrgm XMP, an ISO 21496-1
/// block, Apple's MakerNote or XMP): finite, within what a display can use and what readers accept
/// (libultrahdr 1.4's `uhdr_validate_gainmap_metadata_descriptor`: gamma > 0, offsets ≥ 0, max ≥ min,
/// HDRCapacityMax > HDRCapacityMin ≥ 0), and still so once written with six decimals.
extension GainMapMetadata {
    /// 2^16 over SDR white: far beyond any display (the brightest are about 2^4), and small enough that
    /// no reader's float arithmetic overflows.
    static let maxStops = 16.0
    static let gammaRange = 0.01...100.0
    /// Offsets keep log(0) out of the formula; they are a few hundredths in practice (libultrahdr: 1/64).
    static let offsetRange = 0.0...1.0

    /// The values as imgprep writes them (`GainMapXMP.decimal`), or why they cannot be carried.
    func validated() -> Result<GainMapMetadata, GainMapProblem> {
        let named = [("GainMapMin", gainMapMin), ("GainMapMax", gainMapMax), ("Gamma", gamma), ("OffsetSDR", offsetSDR),
                     ("OffsetHDR", offsetHDR), ("HDRCapacityMin", hdrCapacityMin), ("HDRCapacityMax", hdrCapacityMax)]
        for (name, value) in named where !value.isFinite {
            return .failure(GainMapProblem("\(name) is not a finite number"))
        }
        let stops = -Self.maxStops...Self.maxStops
        for (name, value) in named.prefix(2) where !stops.contains(value) {
            return .failure(GainMapProblem("\(name) \(Self.shown(value)) is outside ±\(Self.shown(Self.maxStops)) stops"))
        }
        for (name, value) in named.suffix(2) where !(0...Self.maxStops).contains(value) {
            return .failure(GainMapProblem("\(name) \(Self.shown(value)) is outside 0...\(Self.shown(Self.maxStops)) stops"))
        }
        guard Self.gammaRange.contains(gamma) else {
            return .failure(GainMapProblem("Gamma \(Self.shown(gamma)) is outside \(Self.shown(Self.gammaRange.lowerBound))...\(Self.shown(Self.gammaRange.upperBound))"))
        }
        for (name, value) in [("OffsetSDR", offsetSDR), ("OffsetHDR", offsetHDR)] where !Self.offsetRange.contains(value) {
            return .failure(GainMapProblem("\(name) \(Self.shown(value)) is outside 0...1"))
        }
        let written = GainMapMetadata(gainMapMin: Self.sixDecimals(gainMapMin), gainMapMax: Self.sixDecimals(gainMapMax),
                                      gamma: Self.sixDecimals(gamma), offsetSDR: Self.sixDecimals(offsetSDR),
                                      offsetHDR: Self.sixDecimals(offsetHDR), hdrCapacityMin: Self.sixDecimals(hdrCapacityMin),
                                      hdrCapacityMax: Self.sixDecimals(hdrCapacityMax))
        guard written.gainMapMax >= written.gainMapMin else {
            return .failure(GainMapProblem("GainMapMax \(Self.shown(gainMapMax)) is below GainMapMin \(Self.shown(gainMapMin))"))
        }
        guard written.hdrCapacityMax > written.hdrCapacityMin else {
            return .failure(GainMapProblem("HDRCapacityMax \(Self.shown(hdrCapacityMax)) is not above HDRCapacityMin \(Self.shown(hdrCapacityMin))"))
        }
        return .success(written)
    }

    /// Whether two statements of a map's values (its XMP and its ISO block) say the same, to well
    /// under what anyone could see (a thousandth of a stop).
    func agrees(with other: GainMapMetadata) -> Bool {
        let mine = [gainMapMin, gainMapMax, gamma, offsetSDR, offsetHDR, hdrCapacityMin, hdrCapacityMax]
        let theirs = [other.gainMapMin, other.gainMapMax, other.gamma, other.offsetSDR, other.offsetHDR,
                      other.hdrCapacityMin, other.hdrCapacityMax]
        return zip(mine, theirs).allSatisfy { abs($0 - $1) <= 0.001 }
    }

    static func sixDecimals(_ value: Double) -> Double {
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        return rounded == 0 ? 0 : rounded   // no -0
    }

    /// A value in a message: short, and never a 300-digit number.
    static func shown(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        return abs(value) >= 1e6 || (value != 0 && abs(value) < 1e-4) ? String(format: "%.3g", value) : GainMapXMP.decimal(value)
    }
}

extension AppleGainMap {
    /// An Apple headroom (a linear factor) checked like every other value: nil for one that brightens
    /// nothing (H ≤ 1, said as such elsewhere), a problem for one that is not a number or beyond 2^16.
    static func checkedHeadroom(_ headroom: Double?) -> Result<Double, GainMapProblem>? {
        guard let headroom else { return nil }
        guard headroom.isFinite, headroom <= exp2(GainMapMetadata.maxStops) else {
            return .failure(GainMapProblem("the headroom \(GainMapMetadata.shown(headroom)) is beyond 2^\(Int(GainMapMetadata.maxStops))"))
        }
        return .success(headroom)
    }
}
