import Foundation
import Testing
@testable import ImagePrep

@Suite struct PNGCodecTests {
    // libpng validates ICC profiles, so the round trip needs a real one.
    @Test(arguments: [3, 4])
    func roundTripKeepsPixelsAndMetadata(channels: Int) throws {
        let icc = try CodecTestSupport.realICCProfile()
        try #require(icc.count > 128)
        let original = ImageMetadata(exif: CodecTestSupport.exifWithOrientation(8),
                                     xmp: CodecTestSupport.xmpPacket(rating: 2), icc: icc)
        let image = CodecTestSupport.gradient(width: 37, height: 23, channels: channels)
        let png = try PNGEncoder.encode(image, metadata: original, compressionLevel: 6)
        let (decoded, metadata) = try PNGDecoder.decode(png)
        #expect(decoded == image)
        #expect(metadata == original)

        let chunks = Self.chunkNames(png)
        let idat = try #require(chunks.firstIndex(of: "IDAT"))
        for name in ["iCCP", "eXIf", "iTXt"] {
            #expect((chunks.firstIndex(of: name) ?? .max) < idat, "\(name) should come before IDAT")
        }
    }

    @Test func exifWithJPEGHeaderIsStrippedToTIFF() throws {
        let tiff = CodecTestSupport.exifWithOrientation(6)
        let png = try PNGEncoder.encode(CodecTestSupport.gradient(width: 4, height: 4),
                                        metadata: ImageMetadata(exif: Array("Exif".utf8) + [0, 0] + tiff),
                                        compressionLevel: 1)
        #expect(try PNGDecoder.decode(png).1.exif == tiff)
    }

    @Test(.enabled(if: CodecTestSupport.toolExists("convert"), "ImageMagick convert is not installed"))
    func sixteenBitGrayIsScaledWithRounding() throws {
        // Values where rounding (v / 257) and truncation (v >> 8) disagree.
        let values: [UInt16] = [0, 128, 129, 255, 256, 32767, 32896, 33000, 65279, 65535]
        var pgm = Array("P5 \(values.count) 1 65535\n".utf8)
        for v in values { pgm += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        let source = CodecTestSupport.temporaryFile("gray16.pgm")
        let target = CodecTestSupport.temporaryFile("gray16.png")
        defer {
            try? FileManager.default.removeItem(at: source)
            try? FileManager.default.removeItem(at: target)
        }
        try Data(pgm).write(to: source)
        let result = try CodecTestSupport.run("convert", [source.path, "-depth", "16", "PNG48:" + target.path])
        try #require(result.status == 0, "convert failed")
        let png = [UInt8](try Data(contentsOf: target))
        try #require(png.count > 26 && png[24] == 16, "convert did not write a 16-bit PNG")

        let (decoded, _) = try PNGDecoder.decode(png)
        #expect(decoded.channels == 3 && decoded.width == values.count)
        let expected = values.map { UInt8((Double($0) / 257).rounded()) }
        let reds = stride(from: 0, to: decoded.pixels.count, by: 3).map { decoded.pixels[$0] }
        #expect(reds == expected)
    }

    @Test func truncatedOrGarbagePNGIsAnError() throws {
        let png = try PNGEncoder.encode(CodecTestSupport.gradient(width: 64, height: 64), metadata: ImageMetadata(),
                                        compressionLevel: 6)
        #expect(throws: ImagePrepError.self) { try PNGDecoder.decode(Array(png.prefix(png.count / 2))) }
        #expect(throws: ImagePrepError.self) { try PNGDecoder.decode(Array(png.dropLast(12))) }   // no IEND
        var damaged = png
        damaged[png.count / 2] ^= 0xFF   // IDAT CRC mismatch
        #expect(throws: ImagePrepError.self) { try PNGDecoder.decode(damaged) }
        #expect(throws: ImagePrepError.self) { try PNGDecoder.decode(Array("GIF89a".utf8)) }
        #expect(throws: ImagePrepError(.tooLarge, "64x64 is over the --max-pixels limit of 4000 pixels")) {
            try PNGDecoder.decode(png, maxPixels: 4000)
        }
    }

    /// Chunk types in file order.
    static func chunkNames(_ png: [UInt8]) -> [String] {
        var names: [String] = []
        var offset = 8
        while offset + 8 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            names.append(String(decoding: png[offset + 4..<offset + 8], as: UTF8.self))
            offset += 12 + length
        }
        return names
    }
}
