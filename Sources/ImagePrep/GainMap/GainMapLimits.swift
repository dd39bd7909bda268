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

    /// The values as imgprep writes them (`GainMapXMP.decimal`), or why they cannot be carried. Each
    /// channel of a per-channel map is checked alone, and a message names the channel.
    func validated() -> Result<GainMapMetadata, GainMapProblem> {
        for (name, value) in [("HDRCapacityMin", hdrCapacityMin), ("HDRCapacityMax", hdrCapacityMax)] {
            guard value.isFinite else { return .failure(GainMapProblem("\(name) is not a finite number")) }
            guard (0...Self.maxStops).contains(value) else {
                return .failure(GainMapProblem("\(name) \(Self.shown(value)) is outside 0...\(Self.shown(Self.maxStops)) stops"))
            }
        }
        var written: [GainMapChannelValues] = []
        for (index, values) in channels.enumerated() {
            let channel = isPerChannel ? " of the \(["red", "green", "blue"][index]) channel" : ""
            switch values.validated(channel) {
            case .success(let checked): written.append(checked)
            case .failure(let problem): return .failure(problem)
            }
        }
        let capacityMin = Self.sixDecimals(hdrCapacityMin), capacityMax = Self.sixDecimals(hdrCapacityMax)
        guard capacityMax > capacityMin else {
            return .failure(GainMapProblem("HDRCapacityMax \(Self.shown(hdrCapacityMax)) is not above HDRCapacityMin \(Self.shown(hdrCapacityMin))"))
        }
        return .success(GainMapMetadata(channels: written, hdrCapacityMin: capacityMin, hdrCapacityMax: capacityMax).collapsed)
    }

    /// Whether two statements of a map's values (its XMP and its ISO block) say the same, to well
    /// under what anyone could see (a thousandth of a stop): the same number of channels, each alike.
    func agrees(with other: GainMapMetadata) -> Bool {
        let (mine, theirs) = (collapsed, other.collapsed)
        guard mine.channels.count == theirs.channels.count,
              abs(mine.hdrCapacityMin - theirs.hdrCapacityMin) <= 0.001,
              abs(mine.hdrCapacityMax - theirs.hdrCapacityMax) <= 0.001 else { return false }
        return zip(mine.channels, theirs.channels).allSatisfy { $0.agrees(with: $1) }
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

extension GainMapChannelValues {
    var named: [(String, Double)] {
        [("GainMapMin", gainMapMin), ("GainMapMax", gainMapMax), ("Gamma", gamma), ("OffsetSDR", offsetSDR), ("OffsetHDR", offsetHDR)]
    }

    /// The channel's values with six decimals, or the first rule they break; `channel` names the
    /// channel in the message (empty for values every channel shares).
    func validated(_ channel: String) -> Result<GainMapChannelValues, GainMapProblem> {
        typealias Limits = GainMapMetadata
        for (name, value) in named where !value.isFinite {
            return .failure(GainMapProblem("\(name)\(channel) is not a finite number"))
        }
        for (name, value) in named.prefix(2) where !(-Limits.maxStops...Limits.maxStops).contains(value) {
            return .failure(GainMapProblem("\(name)\(channel) \(Limits.shown(value)) is outside ±\(Limits.shown(Limits.maxStops)) stops"))
        }
        guard Limits.gammaRange.contains(gamma) else {
            return .failure(GainMapProblem("Gamma\(channel) \(Limits.shown(gamma)) is outside \(Limits.shown(Limits.gammaRange.lowerBound))...\(Limits.shown(Limits.gammaRange.upperBound))"))
        }
        for (name, value) in named.suffix(2) where !Limits.offsetRange.contains(value) {
            return .failure(GainMapProblem("\(name)\(channel) \(Limits.shown(value)) is outside 0...1"))
        }
        let written = GainMapChannelValues(gainMapMin: Limits.sixDecimals(gainMapMin), gainMapMax: Limits.sixDecimals(gainMapMax),
                                           gamma: Limits.sixDecimals(gamma), offsetSDR: Limits.sixDecimals(offsetSDR),
                                           offsetHDR: Limits.sixDecimals(offsetHDR))
        guard written.gainMapMax >= written.gainMapMin else {
            return .failure(GainMapProblem("GainMapMax\(channel) \(Limits.shown(gainMapMax)) is below GainMapMin \(Limits.shown(gainMapMin))"))
        }
        return .success(written)
    }

    func agrees(with other: GainMapChannelValues) -> Bool {
        zip(named, other.named).allSatisfy { abs($0.1 - $1.1) <= 0.001 }
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
