import Foundation
import Testing
@testable import ImagePrep

/// `imgprep convert` end to end on the bundled fixtures: the real binary, checked with exiftool,
/// heif-convert and our own decoders.
@Suite(.serialized) struct ConvertFixtureTests {
    let heic = TestSupport.fixtures.appendingPathComponent("heic").path
    let bad = TestSupport.fixtures.appendingPathComponent("bad").path

    @Test func keepsExifGpsXmpAndIccAndWritesOrientation1() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(heic)/gps-p3.heic"
        let run = try TestSupport.imgprep(["convert", source, "--to", "jpeg", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let output = out.appendingPathComponent("gps-p3.jpg").path
        let before = try TestSupport.exiftool(source), after = try TestSupport.exiftool(output)
        for tag in ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "ExifIFD:OffsetTimeOriginal", "ExifIFD:LensModel",
                    "ExifIFD:ExposureTime", "ExifIFD:FNumber", "ExifIFD:ISO", "GPS:GPSLatitude", "GPS:GPSLongitude",
                    "GPS:GPSAltitude", "GPS:GPSImgDirection", "GPS:GPSLatitudeRef", "XMP-dc:Title"] {
            #expect(before[tag] != nil, "fixture lacks \(tag)")
            #expect("\(after[tag] ?? "missing")" == "\(before[tag] ?? "")", "\(tag)")
        }
        #expect(after["IFD0:Orientation"] as? Int == 1)
        #expect(after["File:ImageWidth"] as? Int == 320)
        #expect(after["File:ImageHeight"] as? Int == 240)
        let iccBefore = try TestSupport.run("exiftool", ["-icc_profile", "-b", source]).stdout
        let iccAfter = try TestSupport.run("exiftool", ["-icc_profile", "-b", output]).stdout
        #expect(!iccBefore.isEmpty && iccBefore == iccAfter, "ICC profile not kept byte for byte")
    }

    @Test func stripGpsKeepsEverythingElse() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--strip-gps", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let after = try TestSupport.exiftool(out.appendingPathComponent("gps-p3.jpg").path)
        #expect(after.keys.filter { $0.hasPrefix("GPS:") || $0.contains(":GPS") }.isEmpty, "\(after.keys.sorted())")
        #expect(after["IFD0:Make"] as? String == "ImgPrepTest")
        #expect(after["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        #expect(after["XMP-dc:Title"] != nil)
    }

    @Test func stripMetadataKeepsTheColourProfile() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--strip-metadata", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let after = try TestSupport.exiftool(out.appendingPathComponent("gps-p3.jpg").path)
        #expect(after["IFD0:Make"] == nil && after["GPS:GPSLatitude"] == nil && after["XMP-dc:Title"] == nil)
        #expect(after["ICC_Profile:ProfileDescription"] as? String == "Display P3")
    }

    @Test func pngKeepsIccExifXmpAndAlpha() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "\(heic)/alpha.heic", "--to", "png", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let after = try TestSupport.exiftool(out.appendingPathComponent("gps-p3.png").path)
        #expect(after["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        #expect(after["GPS:GPSLatitude"] != nil)
        #expect(after["IFD0:Orientation"] as? Int == 1)
        #expect(after["XMP-dc:Title"] != nil)
        let alpha = try TestSupport.decode(out.appendingPathComponent("alpha.png").path)
        #expect(alpha.channels == 4)
        // Top-left quarter opaque red, bottom-left transparent (see scripts/make-fixtures.sh).
        #expect(alpha.pixels[3] == 255)
        let bottomLeft = (60 * alpha.width + 2) * 4
        #expect(alpha.pixels[bottomLeft + 3] == 0)
    }

    @Test func alphaIsFlattenedOntoTheBackground() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        for (background, expected) in [("white", 255), ("black", 0), ("#00ff00", -1)] {
            let run = try TestSupport.imgprep(["convert", "\(heic)/alpha.heic", "--background", background, "--quality", "95", "-o", out.path])
            #expect(run.status == 0, "\(run.stderr)")
            let image = try TestSupport.decode(out.appendingPathComponent("alpha.jpg").path)
            let pixel = Array(image.pixels[((60 * image.width) + 2) * 3 ..< ((60 * image.width) + 2) * 3 + 3]).map(Int.init)
            if expected >= 0 {
                #expect(pixel.allSatisfy { abs($0 - expected) <= 3 }, "\(background): \(pixel)")
            } else {
                #expect(pixel[0] < 10 && pixel[1] > 245 && pixel[2] < 10, "\(background): \(pixel)")
            }
        }
    }

    @Test(.enabled(if: TestSupport.toolExists("heif-convert"), "heif-convert (libheif-examples) is not installed"))
    func tenBitIsScaledWithRoundingNotTruncated() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let reference = out.appendingPathComponent("ref.png").path
        try TestSupport.run("heif-convert", ["\(heic)/10bit.heic", reference])
        let decoded = try HeifDecoder().decode(try TestSupport.bytes("\(heic)/10bit.heic"), options: DecodeOptions(maxPixels: .max))
        #expect(decoded.sourceBitDepth == 10)
        let expected = try TestSupport.decode(reference)  // 16-bit PNG, scaled to 8 bits with rounding by libpng
        var totalError = 0, worst = 0
        for i in 0..<(expected.width * expected.height * 3) {
            let d = abs(Int(decoded.pixels.pixels[i]) - Int(expected.pixels[i]))
            totalError += d
            worst = max(worst, d)
        }
        // Truncating (v >> 2) would be off by about half a level on average. A sample may differ by 2:
        // the reference rounds twice (Y'CbCr to 10-bit RGB, then 16 to 8 bits), we round once.
        #expect(worst <= 2)
        #expect(Double(totalError) / Double(expected.width * expected.height * 3) < 0.2)
    }

    @Test func maxDimensionShrinksButNeverEnlarges() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--max-dimension", "100", "-o", out.path])
        var after = try TestSupport.exiftool(out.appendingPathComponent("gps-p3.jpg").path)
        #expect(after["File:ImageWidth"] as? Int == 100 && after["File:ImageHeight"] as? Int == 75)
        #expect(after["ExifIFD:ExifImageWidth"] == nil || after["ExifIFD:ExifImageWidth"] as? Int == 100)
        try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--max-dimension", "1000", "-o", out.path])
        after = try TestSupport.exiftool(out.appendingPathComponent("gps-p3.jpg").path)
        #expect(after["File:ImageWidth"] as? Int == 320 && after["File:ImageHeight"] as? Int == 240)
    }

    @Test func badFilesGetOneLineAndTheBatchGoesOn() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(bad)/not-heif.heic", "\(heic)/gray.heic", "\(bad)/truncated.heic", "-o", out.path])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("imgprep: ") }
        #expect(lines.contains("imgprep: \(bad)/not-heif.heic: sniff: not an image imgprep reads (looks like a QuickTime movie, brand 'qt  ')"), "\(run.stderr)")
        #expect(lines.contains { $0.hasPrefix("imgprep: \(bad)/truncated.heic: ") && $0.contains("libheif") }, "\(run.stderr)")
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(run.stderr.contains("1 converted, 0 skipped, 2 failed"))
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(written == ["gray.jpg"], "partial or temporary files: \(written)")
    }

    @Test func aJpgThatIsReallyHeicConvertsAsHeic() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: "\(heic)/gps-p3.heic", toPath: dir.appendingPathComponent("photo.jpg").path)
        let run = try TestSupport.imgprep(["convert", dir.appendingPathComponent("photo.jpg").path, "-o", dir.appendingPathComponent("out").path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try TestSupport.exiftool(dir.appendingPathComponent("out/photo.jpg").path)["File:FileType"] as? String == "JPEG")
    }

    @Test func outputsNextToInputsAndRefusesToOverwriteAnInput() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: "\(heic)/gray.heic", toPath: dir.appendingPathComponent("IMG_1.HEIC").path)
        var run = try TestSupport.imgprep(["convert", "IMG_1.HEIC", "--to", "png"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("IMG_1.png").path))
        // Converting the PNG to PNG next to itself would replace it: an error, and the file is untouched.
        let before = try Data(contentsOf: dir.appendingPathComponent("IMG_1.png"))
        run = try TestSupport.imgprep(["convert", "IMG_1.png", "--to", "png"], cwd: dir)
        #expect(run.status == 1)
        #expect(run.stderr.contains("would replace its own input"), "\(run.stderr)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("IMG_1.png")) == before)
    }

    @Test func twoInputsWritingOneOutputTheSecondFails() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for sub in ["a", "b"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "\(heic)/gray.heic", toPath: dir.appendingPathComponent("\(sub)/x.heic").path)
        }
        let run = try TestSupport.imgprep(["convert", "a/x.heic", "b/x.heic", "-o", "out"], cwd: dir)
        #expect(run.status == 1)
        #expect(run.stderr.contains("imgprep: b/x.heic: write: out/x.jpg is written from a/x.heic already"), "\(run.stderr)")
        #expect(!run.stderr.contains("imgprep: a/x.heic:"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/x.jpg").path))
    }

    @Test(arguments: [
        (["convert", "--quality", "abc", "x.heic"], "invalid value 'abc' for '--quality'"),
        (["convert", "--bogus", "x.heic"], "unknown option '--bogus'"),
        (["convert", "--to", "gif", "x.heic"], "invalid value 'gif' for '--to'"),
        (["compress", "x.jpg"], "compress needs --max-bytes"),
        (["compress", "--max-bytes", "1mbytes", "x.jpg"], "invalid value '1mbytes' for '--max-bytes'"),
        // A budget option given without --max-bytes is still checked, not ignored.
        (["convert", "--search", "fast", "x.heic"], "invalid value 'fast' for '--search'"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        // What to type instead: the nearest listed value, the size in bytes.
        (["convert", "--to", "wepb", "x.heic"], "expected jpeg, png, webp, jxl, avif, heic or auto; did you mean 'webp'? see 'imgprep convert --help'"),
        (["compress", "--max-bytes", "1Mb", "x.jpg"], "a lowercase b is a bit ('1Mb' is megabits); for bytes write 1MB; see 'imgprep compress --help'"),
    ])
    func usageErrorsNameTheTokenAndExit2(arguments: [String], message: String) throws {
        let run = try TestSupport.imgprep(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.contains("--help"), "\(run.stderr)")
    }

    @Test func helpListsEveryOptionWithDefaults() throws {
        let run = try TestSupport.imgprep(["convert", "--help"])
        #expect(run.status == 0)
        for option in ["--to", "--quality", "--max-dimension", "--background", "--strip-gps", "--strip-metadata", "--jobs", "-o, --output"] {
            #expect(run.stdout.contains(option), "\(option)")
        }
        #expect(run.stdout.contains("(default: 85)"))
    }
}
