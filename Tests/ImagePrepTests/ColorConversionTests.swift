import Foundation
import Testing
@testable import ImagePrep

/// `--color srgb`: pixels converted from the source's profile with LittleCMS, checked against libvips'
/// `icc_transform` with the same intent (relative colorimetric, black-point compensation), and the
/// compact sRGB profile written in place of the source's.
@Suite(.serialized) struct ColorConversionTests {
    let heic = TestSupport.fixtures.appendingPathComponent("heic").path

    /// vips's conversion of `source` (its embedded profile) to sRGB, 8 bits, as our PNG decoder reads it.
    static func vipsReference(_ source: String, in dir: URL) throws -> PixelBuffer {
        let reference = dir.appendingPathComponent("vips-\(UUID().uuidString).png").path
        let run = try TestSupport.run("vips", ["icc_transform", source, reference, "srgb", "--embedded",
                                               "--intent", "relative", "--black-point-compensation"])
        #expect(run.status == 0, "\(run.stderr)")
        return try TestSupport.decode(reference)
    }

    @Test func displayP3BecomesSRGBLikeVips() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--to", "png", "-o", out.appendingPathComponent("keep").path]).status == 0)
        #expect(try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--to", "png", "--color", "srgb",
                                         "-o", out.appendingPathComponent("srgb").path]).status == 0)
        let kept = out.appendingPathComponent("keep/gps-p3.png").path, converted = out.appendingPathComponent("srgb/gps-p3.png").path
        let reference = try Self.vipsReference(kept, in: out)
        let ours = TestSupport.psnr(try TestSupport.decode(converted), reference)
        let unconverted = TestSupport.psnr(try TestSupport.decode(kept), reference)
        #expect(ours >= 40, "\(ours) dB")
        #expect(unconverted < 36, "the test picture must tell converted from not (\(unconverted) dB)")

        let tags = try TestSupport.exiftool(converted)
        #expect(tags["ICC_Profile:ProfileDescription"] as? String == "sRGB")
        let profile = try TestSupport.capture("exiftool", ["-icc_profile", "-b", converted]).output
        #expect(profile == SRGBProfile.bytes && profile.count < 600, "\(profile.count) bytes")
        #expect(tags["GPS:GPSLatitude"] != nil, "the other metadata stays")
    }

    @Test(arguments: ["jpeg", "webp", "avif", "heic"])
    func stripMetadataLeavesNoProfileAtAll(_ format: String) throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--to", format, "--color", "srgb", "--strip-metadata", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let tags = try TestSupport.exiftool(out.appendingPathComponent("gps-p3.\(format == "jpeg" ? "jpg" : format)").path)
        #expect(tags.keys.filter { $0.hasPrefix("ICC") }.isEmpty, "\(tags.keys.sorted())")
        #expect(tags["GPS:GPSLatitude"] == nil)
    }

    /// A 10-bit source is converted from its 10 bits, not after rounding to 8: closer to vips's own
    /// 16-bit conversion than converting the rounded pixels can be.
    @Test func tenBitSourceConvertsBeforeTheReductionTo8Bits() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(heic)/10bit-p3.heic"
        #expect(try TestSupport.imgprep(["convert", source, "--to", "png", "--color", "srgb", "-o", out.appendingPathComponent("srgb").path]).status == 0)
        #expect(try TestSupport.imgprep(["convert", source, "--to", "png", "-o", out.appendingPathComponent("keep").path]).status == 0)
        let reference = try Self.vipsReference(source, in: out)   // vips reads the 10 bits as 16
        let ours = TestSupport.psnr(try TestSupport.decode(out.appendingPathComponent("srgb/10bit-p3.png").path), reference)
        let roundedFirst = TestSupport.psnr(try Self.vipsReference(out.appendingPathComponent("keep/10bit-p3.png").path, in: out), reference)
        #expect(ours >= 50 && ours > roundedFirst + 3, "ours \(ours) dB, converting 8-bit pixels \(roundedFirst) dB")
    }

    @Test func sixteenBitPNGConvertsBeforeTheReductionTo8Bits() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let icc = out.appendingPathComponent("p3.icc")
        try Data(try TestSupport.capture("exiftool", ["-icc_profile", "-b", "\(heic)/gps-p3.heic"]).output).write(to: icc)
        let source = out.appendingPathComponent("p3-16.png").path
        #expect(try TestSupport.run("convert", ["-size", "96x64", "gradient:#20c040-#f04010", "-depth", "16", "-profile", icc.path, "PNG48:" + source]).status == 0)
        #expect(try TestSupport.imgprep(["convert", source, "--to", "png", "--color", "srgb", "-o", out.appendingPathComponent("srgb").path]).status == 0)
        let reference = try Self.vipsReference(source, in: out)
        let ours = TestSupport.psnr(try TestSupport.decode(out.appendingPathComponent("srgb/p3-16.png").path), reference)
        #expect(ours >= 50, "\(ours) dB")
    }

    @Test func anSRGBOrUnlabelledPictureIsLeftAsItIs() throws {
        var warnings: [String] = []
        #expect(SRGBConversion.transform(for: nil, bytesPerSample: 1, stride: 3, warnings: &warnings) == nil)
        #expect(SRGBConversion.transform(for: SRGBProfile.bytes, bytesPerSample: 1, stride: 3, warnings: &warnings) == nil,
                "our own sRGB profile is sRGB")
        #expect(warnings.isEmpty)
        let garbage = [UInt8](repeating: 7, count: 300)
        #expect(SRGBConversion.transform(for: garbage, bytesPerSample: 1, stride: 3, warnings: &warnings) == nil)
        #expect(warnings.count == 1 && warnings[0].contains("lcms2"), "\(warnings)")
    }

    @Test func aJpegWithoutProfileStaysByteForByteAndAP3JpegIsConverted() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try TestSupport.imgprep(["convert", "\(heic)/gray.heic", "-o", dir.path]).status == 0)
        let source = dir.appendingPathComponent("gray.jpg")
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--color", "srgb", source.path,
                                           "-o", dir.appendingPathComponent("out").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"unchanged\":true"), "\(run.stdout)")
        // A Display P3 JPEG within the budget is converted, not passed through.
        #expect(try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "-o", dir.path]).status == 0)
        let p3 = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--color", "srgb", dir.appendingPathComponent("gps-p3.jpg").path,
                                          "-o", dir.appendingPathComponent("out").path, "--json"])
        #expect(p3.status == 0 && !p3.stdout.contains("\"unchanged\":true"), "\(p3.stdout)")
        // convert likewise: a Display P3 JPEG that needs nothing else is re-encoded in sRGB, neither copied
        // nor turned losslessly (its coefficients hold P3 colours).
        let converted = try TestSupport.imgprep(["convert", "--color", "srgb", dir.appendingPathComponent("gps-p3.jpg").path,
                                                 "-o", dir.appendingPathComponent("converted").path, "--json"])
        #expect(converted.status == 0 && !converted.stdout.contains("\"unchanged\":true")
                && !converted.stdout.contains("\"lossless\":true"), "\(converted.stdout)")
        let tags = try TestSupport.exiftool(dir.appendingPathComponent("converted/gps-p3.jpg").path)
        #expect(tags["ICC_Profile:ProfileDescription"] as? String == "sRGB")
    }

    /// Real iPhone photos: Display P3 left as it is scores about 31 dB against vips's conversion.
    @Test(.enabled(if: TestSupport.corpus != nil, "needs the shared corpus (set IMGPREP_CORPUS)"))
    func iPhonePhotoMatchesVips() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = try #require(TestSupport.corpus).appendingPathComponent("heic/immich__IMG_2682.heic").path
        for (name, color) in [("keep", "keep"), ("srgb", "srgb")] {
            let run = try TestSupport.imgprep(["convert", source, "--to", "png", "--max-dimension", "1024", "--color", color,
                                               "-o", out.appendingPathComponent(name).path])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let kept = out.appendingPathComponent("keep/immich__IMG_2682.png").path
        let reference = try Self.vipsReference(kept, in: out)
        let ours = TestSupport.psnr(try TestSupport.decode(out.appendingPathComponent("srgb/immich__IMG_2682.png").path), reference)
        let unconverted = TestSupport.psnr(try TestSupport.decode(kept), reference)
        #expect(ours >= 40 && unconverted < 35, "converted \(ours) dB, left as P3 \(unconverted) dB")
    }
}
