import Foundation
@testable import ImagePrep

/// Small hostile files made byte by byte in the tests: headers whose numbers overflow, zero and huge
/// counts, directory and reference loops. Nothing here is read from disk.
enum HostileFiles {
    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk: length, type, data, CRC of type and data.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    static func ihdr(width: UInt32, height: UInt32, depth: UInt8 = 8, colourType: UInt8 = 6) -> [UInt8] {
        pngChunk("IHDR", bigEndian(width) + bigEndian(height) + [depth, colourType, 0, 0, 0])
    }

    /// Signature, IHDR and IEND: 45 bytes, no picture data.
    static func pngHeaderOnly(width: UInt32, height: UInt32) -> [UInt8] {
        pngSignature + ihdr(width: width, height: height) + pngChunk("IEND", [])
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    // MARK: EXIF (little-endian TIFF)

    struct Entry {
        var tag: UInt16, type: UInt16, count: UInt32, value: UInt32
    }

    /// A TIFF block with IFD0 at offset 8 holding `entries`, then `next` as the next-IFD offset, then `tail`.
    static func tiff(_ entries: [Entry], next: UInt32 = 0, tail: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = Array("II".utf8) + [42, 0] + littleEndian(UInt32(8))
        bytes += littleEndian16(UInt16(entries.count))
        for entry in entries {
            bytes += littleEndian16(entry.tag) + littleEndian16(entry.type) + littleEndian(entry.count) + littleEndian(entry.value)
        }
        return bytes + littleEndian(next) + tail
    }

    /// A small real JPEG (an 8x8 gradient) with `tiff` as its EXIF APP1 segment.
    static func jpeg(exif tiff: [UInt8]) throws -> [UInt8] {
        let pixels: [UInt8] = (0..<64).flatMap { (i: Int) -> [UInt8] in [UInt8(i * 4), UInt8(255 - i * 4), 128] }
        let picture = PixelBuffer(width: 8, height: 8, channels: 3, pixels: pixels)
        return try JPEGEncoder().encode(picture, quality: 50, settings: JPEGSettings(),
                                        segments: JPEGSegment.segments(for: ImageMetadata(exif: tiff)))
    }

    // MARK: ISO-BMFF

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func fullBox(_ type: String, version: UInt8 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }

    static let heicFileType = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))

    // MARK: Bytes

    static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func bigEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func littleEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
