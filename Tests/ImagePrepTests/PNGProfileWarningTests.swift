import Foundation
import Testing
@testable import ImagePrep

/// libpng drops an iCCP profile it rejects (CMYK or gray for RGB data, damaged) with a mere warning;
/// imgprep says so, as it does for JPEG, WebP and HEIF, instead of losing the profile silently.
@Suite struct PNGProfileWarningTests {
    /// zlib's format with one stored (uncompressed) deflate block: enough for iCCP, no zlib needed.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count <= 0xFFFF)
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let length = UInt16(data.count)
        return [0x78, 0x01, 0x01] + HostileFiles.littleEndian16(length) + HostileFiles.littleEndian16(~length)
            + data + HostileFiles.bigEndian(b << 16 | a)
    }

    /// An 8x8 RGB PNG (a real picture from our encoder) with `profile` as its iCCP chunk.
    static func png(withProfile profile: [UInt8]) throws -> [UInt8] {
        let plain = try PNGEncoder.encode(CodecTestSupport.gradient(width: 8, height: 8), metadata: ImageMetadata())
        let iccp = HostileFiles.pngChunk("iCCP", Array("Test\0".utf8) + [0] + zlibStored(profile))
        return Array(plain.prefix(33)) + iccp + Array(plain.dropFirst(33))   // after the signature and IHDR
    }

    /// A well-formed profile header (no tags) for `colourSpace`.
    static func profile(colourSpace: String) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 132)
        bytes.replaceSubrange(0..<4, with: HostileFiles.bigEndian(132))
        bytes.replaceSubrange(8..<12, with: [4, 0x20, 0, 0])                      // version 4.2
        bytes.replaceSubrange(12..<16, with: Array("prtr".utf8))                  // output device
        bytes.replaceSubrange(16..<20, with: Array(colourSpace.utf8))
        bytes.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        bytes.replaceSubrange(36..<40, with: Array("acsp".utf8))
        bytes.replaceSubrange(68..<80, with: HostileFiles.bigEndian(0xF6D6) + HostileFiles.bigEndian(0x10000) + HostileFiles.bigEndian(0xD32D))
        return bytes
    }

    @Test func aGoodProfileIsKeptWithoutAWord() throws {
        let png = try Self.png(withProfile: SRGBProfile.bytes)
        let decoded = try PNGDecoder().decode(png, options: DecodeOptions(maxPixels: .max))
        #expect(decoded.metadata.icc == SRGBProfile.bytes)
        #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
    }

    @Test(arguments: ["CMYK", "broken"])
    func aRejectedProfileIsNamedInAWarning(kind: String) throws {
        var profile = Self.profile(colourSpace: "CMYK")
        if kind == "broken" {
            profile = SRGBProfile.bytes
            profile.replaceSubrange(36..<40, with: Array("xxxx".utf8))   // no 'acsp' signature
        }
        let png = try Self.png(withProfile: profile)
        let decoded = try PNGDecoder().decode(png, options: DecodeOptions(maxPixels: .max))
        #expect(decoded.metadata.icc == nil)
        #expect(decoded.warnings.contains { $0.hasPrefix("ICC profile dropped: libpng rejected it (iCCP: ") }, "\(decoded.warnings)")
        #expect(try ImageInspector.inspect(png).notes.contains { $0.hasPrefix("ICC profile dropped") })

        // And through the command line, for every output.
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(png).write(to: dir.appendingPathComponent("p.png"))
        for format in ["jpeg", "png", "webp"] {
            let run = try TestSupport.imgprep(["convert", "--to", format, "-o", "out-\(format)", "p.png"], cwd: dir)
            #expect(run.status == 0 && run.stderr.contains("imgprep: p.png: warning: ICC profile dropped"), "\(format): \(run.stderr)")
        }
    }
}
