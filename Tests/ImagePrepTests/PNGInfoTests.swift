import Foundation
import Testing
@testable import ImagePrep

/// `imgprep info` on a PNG reads its chunks, never its picture data, and reports what decoding would.
@Suite struct PNGInfoTests {
    static let icc = ColorProfileSynthesizer.profile(for: NCLXColor(primaries: 12, transfer: 13, matrix: 1, fullRange: true)).icc ?? []

    /// (type, the whole chunk) in file order, after the signature.
    static func chunks(_ png: [UInt8]) -> [(type: String, bytes: [UInt8])] {
        var result: [(String, [UInt8])] = []
        var position = 8
        while position + 12 <= png.count {
            let length = png[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[position + 4..<position + 8], as: UTF8.self)
            result.append((type, Array(png[position..<position + 12 + length])))
            position += 12 + length
        }
        return result
    }

    @Test(arguments: [3, 4])
    func infoReportsWhatDecodingFindsWithMetadataBeforeOrAfterThePixels(channels: Int) throws {
        try #require(Self.icc.count > 128)
        let metadata = ImageMetadata(exif: CodecTestSupport.exifWithOrientation(6), xmp: CodecTestSupport.xmpPacket(rating: 4),
                                     icc: Self.icc)
        let png = try PNGEncoder.encode(CodecTestSupport.gradient(width: 37, height: 23, channels: channels),
                                        metadata: metadata, compressionLevel: 6)
        // The same chunks with eXIf and iTXt moved after IDAT, where PNG allows them too.
        let chunks = Self.chunks(png)
        let late = Set(["eXIf", "iTXt"])
        let reordered = Array(png.prefix(8)) + chunks.filter { !late.contains($0.type) && $0.type != "IEND" }.flatMap(\.bytes)
            + chunks.filter { late.contains($0.type) }.flatMap(\.bytes) + chunks.filter { $0.type == "IEND" }.flatMap(\.bytes)
        #expect(Self.chunks(reordered).map(\.type).last == "IEND" && reordered.count == png.count)

        for file in [png, reordered] {
            let (_, decoded) = try PNGDecoder.decode(file)
            #expect(decoded == metadata)
            let info = try ImageInspector.inspect(file)
            // Orientation 6 turns the stored 37x23 upright: info gives the size outputs will have.
            #expect(info.format == "PNG" && info.width == 23 && info.height == 37 && info.bitDepth == 8)
            #expect(info.storedSize == PixelSize(width: 37, height: 23))
            #expect(info.hasAlpha == (channels == 4))
            #expect(info.exifOrientation == 6)
            #expect(info.exifBytes == metadata.exif?.count && info.xmpBytes == metadata.xmp?.count)
            #expect(info.colour.hasSuffix("\(Self.icc.count) bytes"), "\(info.colour)")
        }
    }

    /// Picture data that is garbage, for a picture far too big to decode: info answers from IHDR at once.
    @Test func infoNeverInflatesThePictureData() throws {
        let png = HostileFiles.pngSignature + HostileFiles.ihdr(width: 20000, height: 20000, colourType: 2)
            + HostileFiles.pngChunk("IDAT", Array(repeating: 0xAB, count: 100)) + HostileFiles.pngChunk("IEND", [])
        let info = try ImageInspector.inspect(png)
        #expect(info.width == 20000 && info.height == 20000 && !info.hasAlpha)
        #expect(info.notes.contains { $0.contains("default --max-pixels") }, "\(info.notes)")
        #expect(throws: ImagePrepError.self) { try PNGDecoder.decode(png, maxPixels: .max) }
    }

    @Test func alphaAndDepthComeFromTheHeaderAndTRNS() throws {
        func png(depth: UInt8, type: UInt8, _ extra: [UInt8] = []) -> [UInt8] {
            HostileFiles.pngSignature + HostileFiles.ihdr(width: 4, height: 2, depth: depth, colourType: type) + extra
                + HostileFiles.pngChunk("IDAT", []) + HostileFiles.pngChunk("IEND", [])
        }
        let palette = HostileFiles.pngChunk("PLTE", [255, 0, 0, 0, 255, 0])
        let cases: [(file: [UInt8], depth: Int, alpha: Bool)] = [
            (png(depth: 16, type: 2), 16, false),
            (png(depth: 8, type: 2, HostileFiles.pngChunk("tRNS", [0, 1, 0, 2, 0, 3])), 8, true),
            (png(depth: 4, type: 3, palette), 8, false),
            (png(depth: 4, type: 3, palette + HostileFiles.pngChunk("tRNS", [0])), 8, true),
            (png(depth: 16, type: 4), 16, true),
            (png(depth: 2, type: 0), 2, false),
        ]
        for (file, depth, alpha) in cases {
            let info = try ImageInspector.inspect(file)
            #expect(info.bitDepth == depth && info.hasAlpha == alpha, "\(info.bitDepth) \(info.hasAlpha)")
        }
        // libpng's own checks still apply: a palette image without PLTE, or a bad IHDR, is an error.
        #expect(throws: ImagePrepError.self) { try ImageInspector.inspect(png(depth: 8, type: 3)) }
        #expect(throws: ImagePrepError.self) { try ImageInspector.inspect(png(depth: 7, type: 2)) }
        #expect(throws: ImagePrepError.self) { try ImageInspector.inspect(Array(png(depth: 8, type: 2).prefix(20))) }
    }
}
