import Foundation
import Testing
@testable import ImagePrep

/// A damaged scan can decode to its last block without a warning and leave bytes it never used: libjpeg
/// only says so ("extraneous bytes before marker 0xd9") when it reaches the next marker. Every path (the
/// lossless one, decodes to RGB or to planes, at full or reduced size, every output format) must fail it.
@Suite struct CorruptScanTests {
    /// A good baseline JPEG with `junk` between the end of its scan and its EOI, as a scan whose
    /// damaged codes happened to finish early leaves it.
    static func jpegWithUnusedScanBytes(width: Int = 96, height: Int = 64) throws -> [UInt8] {
        let jpeg = try JPEGEncoder().encode(CodecTestSupport.gradient(width: width, height: height), quality: 85,
                                            settings: JPEGSettings(subsampling: .s420))
        precondition(jpeg.suffix(2) == [0xFF, 0xD9])
        let junk = (1...40).map { UInt8($0) }
        return Array(jpeg.dropLast(2)) + junk + [0xFF, 0xD9]
    }

    static func isExtraneousData(_ error: any Error) -> Bool {
        (error as? ImagePrepError)?.description.contains("extraneous bytes before marker 0xd9") == true
    }

    @Test func everyDecodeFailsOnBytesTheScanDidNotUse() throws {
        let jpeg = try Self.jpegWithUnusedScanBytes()
        #expect { try JPEGDecoder.checkIntegrity(of: jpeg) } throws: { Self.isExtraneousData($0) }
        for denominator in [1, 2, 8] {
            #expect("scale 1/\(denominator)") { try JPEGDecoder.decode(jpeg, scaleDenominator: denominator) } throws: { Self.isExtraneousData($0) }
        }
        #expect { try JPEGDecoder.decodePlanes(jpeg) } throws: { Self.isExtraneousData($0) }
    }

    @Test func aGoodFileStillDecodesEveryWay() throws {
        let jpeg = try JPEGEncoder().encode(CodecTestSupport.gradient(width: 96, height: 64), quality: 85,
                                            settings: JPEGSettings(subsampling: .s420))
        try JPEGDecoder.checkIntegrity(of: jpeg)
        #expect(try JPEGDecoder.decode(jpeg).width == 96)
        #expect(try JPEGDecoder.decodePlanes(jpeg) != nil)
        // Data after the EOI (an Ultra HDR gain map, say) is not part of the picture and is not read.
        let trailed = jpeg + [0x00, 0x11, 0x22, 0xFF, 0xD8, 0x33]
        #expect(try JPEGDecoder.decode(trailed) == (try JPEGDecoder.decode(jpeg)))
    }

    @Test(arguments: [
        ["convert"], ["convert", "-q", "70"], ["convert", "--to", "png"], ["convert", "--to", "webp"],
        ["convert", "--max-dimension", "40"], ["compress", "--max-bytes", "100KB"], ["compress", "--max-bytes", "2KB"],
    ])
    func everyCommandFailsTheFile(arguments: [String]) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("damaged.jpg")
        try Data(try Self.jpegWithUnusedScanBytes()).write(to: input)
        let out = dir.appendingPathComponent("out")
        let run = try TestSupport.imgprep(arguments + ["-o", out.path, input.path])
        #expect(run.status == 1, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains("extraneous bytes before marker 0xd9"), "\(arguments): \(run.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out.path))?.isEmpty ?? true, "\(arguments): an output was written")
    }
}
