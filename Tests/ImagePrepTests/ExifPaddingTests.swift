import Foundation
import Testing
@testable import ImagePrep

/// Bytes past every EXIF structure (padding, a maker's unreferenced preview) are dropped in every output
/// format, so a budget buys picture; everything a directory points to stays where it was.
@Suite struct ExifPaddingTests {
    typealias E = HostileFiles.Entry

    /// IFD0 with Make ("Cam\0" inline) and Model (out of line), then `padding` zero bytes.
    static func padded(_ padding: Int, extra: [E] = []) -> (tiff: [UInt8], used: Int) {
        let entries = [E(tag: 0x010F, type: 2, count: 4, value: 0x006D_6143)] + extra
            + [E(tag: 0x0110, type: 2, count: 8, value: UInt32(8 + 2 + 12 * (2 + extra.count) + 4))]
        let model = Array("Model 7\0".utf8)
        let tiff = HostileFiles.tiff(entries.sorted { $0.tag < $1.tag }, tail: model)
        return (tiff + [UInt8](repeating: 0, count: padding), tiff.count)
    }

    @Test func trailingPaddingIsDropped() throws {
        let (tiff, used) = Self.padded(60_000)
        let patched = try Exif.patch(tiff, options: ExifPatchOptions(orientation: 1))
        #expect(patched.tiff.count == used && Array(tiff.prefix(used)) == patched.tiff)
    }

    @Test func aThumbnailAtTheEndStays() throws {
        // IFD1 after the model, then a 100-byte "thumbnail", then padding.
        let (base, used) = Self.padded(0)
        var tiff = base
        let ifd1 = tiff.count
        let thumbnail = ifd1 + 2 + 2 * 12 + 4
        tiff.replaceSubrange((8 + 2 + 12 * 2)..<(8 + 2 + 12 * 2 + 4), with: HostileFiles.littleEndian(UInt32(ifd1)))
        tiff += HostileFiles.littleEndian16(2)
            + HostileFiles.littleEndian16(0x0201) + HostileFiles.littleEndian16(4) + HostileFiles.littleEndian(1) + HostileFiles.littleEndian(UInt32(thumbnail))
            + HostileFiles.littleEndian16(0x0202) + HostileFiles.littleEndian16(4) + HostileFiles.littleEndian(1) + HostileFiles.littleEndian(100)
            + HostileFiles.littleEndian(0)
        tiff += [UInt8](repeating: 0xAB, count: 100) + [UInt8](repeating: 0, count: 5_000)
        #expect(used == ifd1)
        let patched = try Exif.patch(tiff, options: ExifPatchOptions())
        #expect(patched.tiff.count == thumbnail + 100 && Array(tiff.prefix(thumbnail + 100)) == patched.tiff)
    }

    @Test func structuresThisReaderDoesNotFollowKeepEverything() throws {
        // SubIFDs (0x014A) point to directories the reader does not walk: nothing may be cut.
        let (tiff, _) = Self.padded(1_000, extra: [E(tag: 0x014A, type: 4, count: 1, value: 200)])
        #expect(try Exif.patch(tiff, options: ExifPatchOptions()).tiff == tiff)
    }

    @Test(arguments: ["webp", "heic", "jpeg", "png"])
    func everyFormatWritesTheCompactBlock(format: String) throws {
        let (tiff, used) = Self.padded(60_000)
        let heif = try ImagePipeline.prepare(try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("heic/gray.heic").path),
                                             settings: ConversionSettings())
        // A JPEG source can hold only 64 KB of EXIF: start from it with the padded block.
        var metadata = JPEGMarkers.metadata(in: heif.bytes).0
        metadata.exif = tiff
        let source = try JPEGEncoder().encode(try JPEGDecoder.decode(heif.bytes), quality: 90, settings: JPEGSettings(),
                                              segments: JPEGSegment.segments(for: metadata))
        var settings = ConversionSettings()
        settings.format = try #require(OutputFormat(rawValue: format))
        settings.quality = 80
        settings.keepsInputCoding = false
        let output = try ImagePipeline.prepare(source, settings: settings)
        #expect(output.bytes.count < 40_000, "\(format): \(output.bytes.count) bytes")
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.\(format)").path
        try Data(output.bytes).write(to: URL(fileURLWithPath: path))
        if TestSupport.toolExists("exiftool") {
            let tags = try TestSupport.exiftool(path)
            #expect(tags["IFD0:Make"] as? String == "Cam" && tags["IFD0:Model"] as? String == "Model 7", "\(format): \(tags)")
            #expect(tags["ExifTool:Warning"] == nil, "\(format): \(tags["ExifTool:Warning"] ?? "")")
            let exif = try TestSupport.run("exiftool", ["-b", "-EXIF", path])
            #expect(exif.stdout.utf8.count <= used + 16, "\(format): EXIF is \(exif.stdout.utf8.count) bytes")
        }
    }

    /// A 1200x800 JPEG whose EXIF exiftool wrote (Make, GPS), padded with zeros to 60 KB as some cameras
    /// do, and the size of the block before the padding.
    static func paddedCameraJPEG(in dir: URL) throws -> (path: String, used: Int) {
        let plain = dir.appendingPathComponent("plain.jpg").path
        try Data(try JPEGEncoder().encode(CodecTestSupport.gradient(width: 1200, height: 800), quality: 85,
                                          settings: JPEGSettings())).write(to: URL(fileURLWithPath: plain))
        let tagged = try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-Make=Cam", "-GPSLatitude=48.5",
                                                      "-GPSLatitudeRef=N", "-GPSLongitude=2.25", "-GPSLongitudeRef=E", plain])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let bytes = try TestSupport.bytes(plain)
        var metadata = JPEGMarkers.metadata(in: bytes).0
        let exif = try #require(metadata.exif)
        metadata.exif = exif + [UInt8](repeating: 0, count: 60_000 - exif.count)
        let padded = try JPEGEncoder().encode(try JPEGDecoder.decode(bytes), quality: 85, settings: JPEGSettings(),
                                              segments: JPEGSegment.segments(for: metadata))
        let path = dir.appendingPathComponent("padded.jpg").path
        try Data(padded).write(to: URL(fileURLWithPath: path))
        return (path, exif.count)
    }

    /// JPEG outputs re-encoded (resized, or under a budget) and JPEGs that would leave as they came
    /// (a lossless rewrite) carry the block without its padding, GPS and all, as WebP does.
    @Test(.enabled(if: TestSupport.toolExists("exiftool"), "needs exiftool"),
          arguments: [["convert", "--max-dimension", "800", "--to", "jpeg"], ["compress", "--max-bytes", "50000", "--to", "jpeg"],
                      ["convert", "--to", "jpeg"], ["compress", "--max-bytes", "1000000", "--to", "jpeg"],
                      ["convert", "--max-dimension", "800", "--to", "webp"]])
    func jpegOutputsCutThePaddingToo(arguments: [String]) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (source, used) = try Self.paddedCameraJPEG(in: dir)
        let run = try TestSupport.imgprep(arguments + ["-o", "out", source], cwd: dir)
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        let output = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path).first)
        let path = dir.appendingPathComponent("out").appendingPathComponent(output).path
        let bytes = try TestSupport.bytes(path)
        let exif = output.hasSuffix(".webp") ? try WebPContainer(bytes).metadata.exif : JPEGMarkers.metadata(in: bytes).0.exif
        let count = try #require(exif?.count)
        #expect(count <= used + 16, "\(arguments): EXIF is \(count) bytes, \(used) referenced")
        let tags = try TestSupport.exiftool(path)
        #expect(tags["IFD0:Make"] as? String == "Cam", "\(arguments): \(tags)")
        #expect(abs((tags["GPS:GPSLatitude"] as? Double ?? 0) - 48.5) < 0.001 && tags["ExifTool:Warning"] == nil, "\(arguments): \(tags)")
    }
}
