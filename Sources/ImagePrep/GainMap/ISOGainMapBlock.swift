import Foundation

/// The ISO 21496-1 gain-map metadata as a JPEG APP2 segment carries it: a version-only block in the
/// primary image, the full block in the gain-map image. Big-endian: u16 minimum and writer version,
/// u8 flags, then the base and alternate headroom and per channel the gain-map min, max, gamma and the
/// two offsets, each a fraction (libultrahdr's gainmapmetadata.cpp reads the same layout).
enum ISOGainMapBlock {
    static let header: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]
    /// minimum_version 0, writer_version 0: what the primary image carries.
    static let versionPayload: [UInt8] = header + [0, 0, 0, 0]

    private static let multiChannel: UInt8 = 0x80
    private static let useBaseColorSpace: UInt8 = 0x40
    private static let backwardDirection: UInt8 = 0x04
    private static let commonDenominator: UInt8 = 0x08

    /// A full block's values and how many bytes follow them (passed over, as libultrahdr does).
    struct Reading {
        var metadata: GainMapMetadata
        var trailingBytes: Int
    }

    /// The values of a full block (after the header), checked (`GainMapMetadata.validated`); nil for a
    /// payload that is not an ISO 21496-1 block or is the version-only block. A block this reader cannot
    /// follow is a problem, not a silent miss, since readers that prefer ISO to XMP (libultrahdr) would
    /// refuse the file: a minimum version other than 0, the backward direction, a zero denominator, a
    /// block shorter than its flags say. The multichannel flag means three sets of channel values.
    static func metadata(in payload: [UInt8]) -> Result<GainMapMetadata, GainMapProblem>? {
        read(payload).map { $0.map(\.metadata) }
    }

    /// `metadata(in:)` with the count of bytes after the values.
    static func read(_ payload: [UInt8]) -> Result<Reading, GainMapProblem>? {
        guard payload.starts(with: header), payload.count > versionPayload.count else { return nil }
        var reader = BigEndianReader(Array(payload.dropFirst(header.count)))
        guard let minimumVersion = reader.u16(), reader.u16() != nil, let flags = reader.u8() else {
            return .failure(GainMapProblem("its ISO 21496-1 block is cut short"))
        }
        guard minimumVersion == 0 else { return .failure(GainMapProblem("its ISO 21496-1 block needs version \(minimumVersion)")) }
        guard flags & backwardDirection == 0 else {
            return .failure(GainMapProblem("its ISO 21496-1 block maps from HDR to SDR (not supported)"))
        }
        let channelCount = flags & multiChannel != 0 ? 3 : 1
        let shortBlock = GainMapProblem("its ISO 21496-1 block is cut short")
        var headrooms: [Double] = []
        var channels: [GainMapChannelValues] = []
        if flags & commonDenominator != 0 {
            guard let denominator = reader.u32(), let base = reader.u32(), let alternate = reader.u32() else { return .failure(shortBlock) }
            guard denominator != 0 else { return .failure(GainMapProblem("its ISO 21496-1 block has a zero denominator")) }
            let d = Double(denominator)
            headrooms = [Double(base) / d, Double(alternate) / d]
            for _ in 0..<channelCount {
                guard let minimum = reader.s32(), let maximum = reader.s32(), let gamma = reader.u32(),
                      let baseOffset = reader.s32(), let alternateOffset = reader.s32() else { return .failure(shortBlock) }
                channels.append(GainMapChannelValues(gainMapMin: Double(minimum) / d, gainMapMax: Double(maximum) / d,
                                                     gamma: Double(gamma) / d, offsetSDR: Double(baseOffset) / d,
                                                     offsetHDR: Double(alternateOffset) / d))
            }
        } else {
            func fraction(_ name: String, signed: Bool) -> Result<Double, GainMapProblem> {
                guard let numerator = signed ? reader.s32().map(Double.init) : reader.u32().map(Double.init),
                      let denominator = reader.u32() else { return .failure(shortBlock) }
                guard denominator != 0 else { return .failure(GainMapProblem("its ISO 21496-1 \(name) has a zero denominator")) }
                return .success(numerator / Double(denominator))
            }
            do throws(GainMapProblem) {
                headrooms = [try fraction("base headroom", signed: false).get(), try fraction("alternate headroom", signed: false).get()]
                for _ in 0..<channelCount {
                    channels.append(GainMapChannelValues(
                        gainMapMin: try fraction("gain map min", signed: true).get(),
                        gainMapMax: try fraction("gain map max", signed: true).get(),
                        gamma: try fraction("gamma", signed: false).get(),
                        offsetSDR: try fraction("base offset", signed: true).get(),
                        offsetHDR: try fraction("alternate offset", signed: true).get()))
                }
            } catch {
                return .failure(error)
            }
        }
        return GainMapMetadata(channels: channels, hdrCapacityMin: headrooms[0], hdrCapacityMax: headrooms[1]).validated()
            .map { Reading(metadata: $0, trailingBytes: reader.remaining) }
    }

    /// The full block, in the explicit form (a denominator per value: libavif misreads the common one),
    /// with three sets of channel values behind the multichannel flag for a per-channel map.
    static func payload(_ metadata: GainMapMetadata) -> [UInt8] {
        var bytes = header + [0, 0, 0, 0, useBaseColorSpace | (metadata.isPerChannel ? multiChannel : 0)]
        func signed(_ value: Double) {
            let (numerator, denominator) = fraction(value)
            bytes += bigEndian(UInt32(bitPattern: numerator)) + bigEndian(denominator)
        }
        func unsigned(_ value: Double) { signed(max(0, value)) }   // a non-negative Int32 reads the same as UInt32
        unsigned(metadata.hdrCapacityMin)
        unsigned(metadata.hdrCapacityMax)
        for channel in metadata.channels {
            signed(channel.gainMapMin)
            signed(channel.gainMapMax)
            unsigned(channel.gamma)
            signed(channel.offsetSDR)
            signed(channel.offsetHDR)
        }
        return bytes
    }

    /// `value` as n / d with the largest power-of-ten denominator (up to 10^7) that keeps n in Int32.
    static func fraction(_ value: Double) -> (Int32, UInt32) {
        var denominator: UInt32 = 10_000_000
        while denominator > 1, abs(value * Double(denominator)) > Double(Int32.max) { denominator /= 10 }
        let numerator = (value * Double(denominator)).rounded()
        return (Int32(max(Double(Int32.min), min(Double(Int32.max), numerator))), denominator)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// Bounds-checked big-endian reads: nil past the end.
struct BigEndianReader {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func u8() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() -> UInt16? {
        guard let a = u8(), let b = u8() else { return nil }
        return UInt16(a) << 8 | UInt16(b)
    }

    mutating func u32() -> UInt32? {
        guard let a = u16(), let b = u16() else { return nil }
        return UInt32(a) << 16 | UInt32(b)
    }

    mutating func s32() -> Int32? { u32().map { Int32(bitPattern: $0) } }

    var remaining: Int { max(0, bytes.count - position) }
}
