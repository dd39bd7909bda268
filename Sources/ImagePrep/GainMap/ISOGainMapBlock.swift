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

    /// The values of a full block (after the header), checked (`GainMapMetadata.validated`); nil for a
    /// payload that is not an ISO 21496-1 block or is the version-only block. A block this reader cannot
    /// follow is a problem, not a silent miss, since readers that prefer ISO to XMP (libultrahdr) would
    /// refuse the file: a minimum version other than 0, the backward direction, per-channel values
    /// (imgprep carries grey maps), a zero denominator, a length other than the flags say.
    static func metadata(in payload: [UInt8]) -> Result<GainMapMetadata, GainMapProblem>? {
        guard payload.starts(with: header), payload.count > versionPayload.count else { return nil }
        var reader = BigEndianReader(Array(payload.dropFirst(header.count)))
        guard let minimumVersion = reader.u16(), reader.u16() != nil, let flags = reader.u8() else {
            return .failure(GainMapProblem("its ISO 21496-1 block is cut short"))
        }
        guard minimumVersion == 0 else { return .failure(GainMapProblem("its ISO 21496-1 block needs version \(minimumVersion)")) }
        guard flags & backwardDirection == 0 else {
            return .failure(GainMapProblem("its ISO 21496-1 block maps from HDR to SDR (not supported)"))
        }
        guard flags & multiChannel == 0 else {
            return .failure(GainMapProblem("its ISO 21496-1 block has per-channel values (imgprep carries grey maps)"))
        }
        let names = ["base headroom", "alternate headroom", "gain map min", "gain map max", "gamma", "base offset", "alternate offset"]
        let signed = [false, false, true, true, false, true, true]
        var fractions: [Double] = []
        if flags & commonDenominator != 0 {
            guard let denominator = reader.u32(), let base = reader.u32(), let alternate = reader.u32(),
                  let minimum = reader.s32(), let maximum = reader.s32(), let gamma = reader.u32(),
                  let baseOffset = reader.s32(), let alternateOffset = reader.s32() else {
                return .failure(GainMapProblem("its ISO 21496-1 block is cut short"))
            }
            guard denominator != 0 else { return .failure(GainMapProblem("its ISO 21496-1 block has a zero denominator")) }
            fractions = [Double(base), Double(alternate), Double(minimum), Double(maximum), Double(gamma),
                         Double(baseOffset), Double(alternateOffset)].map { $0 / Double(denominator) }
        } else {
            for (name, isSigned) in zip(names, signed) {
                guard let numerator = isSigned ? reader.s32().map(Double.init) : reader.u32().map(Double.init),
                      let denominator = reader.u32() else {
                    return .failure(GainMapProblem("its ISO 21496-1 block is cut short"))
                }
                guard denominator != 0 else { return .failure(GainMapProblem("its ISO 21496-1 \(name) has a zero denominator")) }
                fractions.append(numerator / Double(denominator))
            }
        }
        guard reader.isAtEnd else {
            return .failure(GainMapProblem("its ISO 21496-1 block has \(reader.remaining) bytes more than its flags say"))
        }
        let metadata = GainMapMetadata(gainMapMin: fractions[2], gainMapMax: fractions[3], gamma: fractions[4],
                                       offsetSDR: fractions[5], offsetHDR: fractions[6],
                                       hdrCapacityMin: fractions[0], hdrCapacityMax: fractions[1])
        return metadata.validated()
    }

    /// The full block, in the explicit form (a denominator per value: libavif misreads the common one).
    static func payload(_ metadata: GainMapMetadata) -> [UInt8] {
        var bytes = header + [0, 0, 0, 0, useBaseColorSpace]
        func signed(_ value: Double) {
            let (numerator, denominator) = fraction(value)
            bytes += bigEndian(UInt32(bitPattern: numerator)) + bigEndian(denominator)
        }
        func unsigned(_ value: Double) { signed(max(0, value)) }   // a non-negative Int32 reads the same as UInt32
        unsigned(metadata.hdrCapacityMin)
        unsigned(metadata.hdrCapacityMax)
        signed(metadata.gainMapMin)
        signed(metadata.gainMapMax)
        unsigned(metadata.gamma)
        signed(metadata.offsetSDR)
        signed(metadata.offsetHDR)
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

    var isAtEnd: Bool { position >= bytes.count }
    var remaining: Int { max(0, bytes.count - position) }
}
