import Foundation
import Testing
@testable import ImagePrep

/// `--to webp|avif|heic` on the bundled fixtures: each output read back by a decoder that is not ours
/// (dwebp, avifdec, heif-convert), its metadata by exiftool.
@Suite(.serialized) struct WebOutputTests {
    let heic = TestSupport.fixtures.appendingPathComponent("heic").path

    /// The independent decoder for each format, writing a PNG.
    static func decodeIndependently(_ path: String, to png: String) throws -> PixelBuffer {
        let run: TestSupport.Run = switch URL(fileURLWithPath: path).pathExtension {
        case "webp": try TestSupport.run("dwebp", ["-quiet", path, "-o", png])
        case "avif": try TestSupport.run("avifdec", [path, png])
        default: try TestSupport.run("heif-convert", [path, png])
        }
        #expect(run.status == 0, "\(path): \(run.stderr)")
        return try TestSupport.decode(png)
    }

    @Test(arguments: ["webp", "avif", "heic"])
    func keepsPixelsExifGpsXmpAndIccAndIsUpright(_ format: String) throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(heic)/gps-p3.heic"
        let run = try TestSupport.imgprep(["convert", source, "--to", format, "-o", out.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let output = out.appendingPathComponent("gps-p3.\(format)").path
        #expect(run.stdout.contains("\"format\":\"\(format)\""), "\(run.stdout)")
        let expectedQuality = format == "webp" ? 80 : 50
        #expect(run.stdout.contains("\"quality\":\(expectedQuality)"), "\(run.stdout)")

        let before = try TestSupport.exiftool(source), after = try TestSupport.exiftool(output)
        for tag in ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "GPS:GPSLatitude", "GPS:GPSLongitude",
                    "GPS:GPSAltitude", "XMP-dc:Title"] {
            #expect(before[tag] != nil, "fixture lacks \(tag)")
            #expect("\(after[tag] ?? "missing")" == "\(before[tag] ?? "")", "\(format): \(tag)")
        }
        #expect(after["IFD0:Orientation"] as? Int == 1)
        #expect(after["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        let iccBefore = try TestSupport.capture("exiftool", ["-icc_profile", "-b", source]).output
        let iccAfter = try TestSupport.capture("exiftool", ["-icc_profile", "-b", output]).output
        #expect(!iccBefore.isEmpty && iccBefore == iccAfter, "ICC profile not kept byte for byte")
        if format != "webp" {
            // No irot/imir: the pixels are stored upright.
            let info = try TestSupport.run("heif-info", [output]).stdout
            #expect(info.contains("image: 320x240"), "\(info)")
            #expect(after["QuickTime:Rotation"] == nil && after["QuickTime:Mirroring"] == nil, "\(after.keys.filter { $0.hasPrefix("QuickTime") })")
        }

        let reference = out.appendingPathComponent("reference.png").path
        #expect(try TestSupport.imgprep(["convert", source, "--to", "png", "-o", out.path]).status == 0)
        try FileManager.default.moveItem(atPath: out.appendingPathComponent("gps-p3.png").path, toPath: reference)
        let decoded = try Self.decodeIndependently(output, to: out.appendingPathComponent("decoded.png").path)
        let psnr = TestSupport.psnr(decoded, try TestSupport.decode(reference))
        #expect(psnr >= 32, "\(format): \(psnr) dB")
    }

    /// `--avif-speed` sets libaom's speed: another encode (not the default's bytes), still read by avifdec
    /// at the same fidelity and with its metadata; outside 0-9 it is a usage error.
    @Test func avifSpeedChoosesTheEncoderSpeed() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(heic)/gps-p3.heic"
        for speed in ["6", "9"] {
            let run = try TestSupport.imgprep(["convert", source, "--to", "avif", "--avif-speed", speed, "-o", out.appendingPathComponent(speed).path])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let (six, nine) = (out.appendingPathComponent("6/gps-p3.avif").path, out.appendingPathComponent("9/gps-p3.avif").path)
        let defaultRun = try TestSupport.imgprep(["convert", source, "--to", "avif", "-o", out.appendingPathComponent("default").path])
        #expect(defaultRun.status == 0)
        #expect(try TestSupport.bytes(out.appendingPathComponent("default/gps-p3.avif").path) == TestSupport.bytes(six))
        #expect(try TestSupport.bytes(six) != TestSupport.bytes(nine))
        #expect(try TestSupport.exiftool(nine)["GPS:GPSLatitude"] != nil)
        #expect(try TestSupport.imgprep(["convert", source, "--to", "png", "-o", out.path]).status == 0)
        let reference = try TestSupport.decode(out.appendingPathComponent("gps-p3.png").path)
        let psnr = TestSupport.psnr(try Self.decodeIndependently(nine, to: out.appendingPathComponent("nine.png").path), reference)
        #expect(psnr >= 32, "\(psnr) dB")
        let refused = try TestSupport.imgprep(["convert", source, "--to", "avif", "--avif-speed", "10", "-o", out.path])
        #expect(refused.status == 2 && refused.stderr.contains("--avif-speed"), "\(refused.stderr)")
    }

    @Test(arguments: ["webp", "avif", "heic"])
    func keepsAlpha(_ format: String) throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(heic)/alpha.heic", "--to", format, "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let pixels = try Self.decodeIndependently(out.appendingPathComponent("alpha.\(format)").path,
                                                  to: out.appendingPathComponent("decoded.png").path)
        #expect(pixels.channels == 4)
        func alpha(_ x: Int, _ y: Int) -> Int { Int(pixels.pixels[(y * pixels.width + x) * 4 + 3]) }
        // Opaque red top-left, half-transparent blue bottom-right, the rest transparent.
        #expect(alpha(8, 8) > 250, "\(alpha(8, 8))")
        #expect(abs(alpha(48, 48) - 128) < 12, "\(alpha(48, 48))")
        #expect(alpha(48, 8) < 6, "\(alpha(48, 8))")
    }

    @Test func losslessWebPKeepsEveryPixel() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(heic)/gps-p3.heic"
        #expect(try TestSupport.imgprep(["convert", source, "--to", "webp", "--lossless", "-o", out.path]).status == 0)
        #expect(try TestSupport.imgprep(["convert", source, "--to", "png", "-o", out.path]).status == 0)
        let decoded = try Self.decodeIndependently(out.appendingPathComponent("gps-p3.webp").path,
                                                   to: out.appendingPathComponent("decoded.png").path)
        #expect(decoded.pixels == (try TestSupport.decode(out.appendingPathComponent("gps-p3.png").path)).pixels)
        #expect(try TestSupport.run("webpinfo", [out.appendingPathComponent("gps-p3.webp").path]).stdout.contains("Lossless"))
    }

    @Test(arguments: ["webp", "avif", "heic"])
    func turnedJpegComesOutUpright(_ format: String) throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        // A JPEG of the orientation-6 drawing whose EXIF says "turn me".
        let jpeg = out.appendingPathComponent("turned.jpg").path
        #expect(try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("webp/orientation-6.webp").path,
                                         "--to", "png", "-o", out.path]).status == 0)
        #expect(try TestSupport.run("convert", [out.appendingPathComponent("orientation-6.png").path, "-rotate", "-90", jpeg]).status == 0)
        #expect(try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", jpeg]).status == 0)
        #expect(try TestSupport.imgprep(["convert", jpeg, "--to", format, "-o", out.path]).status == 0)
        let output = out.appendingPathComponent("turned.\(format)").path
        let pixels = try Self.decodeIndependently(output, to: out.appendingPathComponent("decoded.png").path)
        #expect((pixels.width, pixels.height) == (160, 240))
        let orientation = try TestSupport.exiftool(output)["IFD0:Orientation"] as? Int
        #expect(orientation == 1, "\(String(describing: orientation))")
    }

    @Test(arguments: [
        (["convert", "--to", "avif", "--lossless", "x.heic"], "--lossless is for --to webp"),
        (["convert", "--to", "webp", "--lossless", "--max-bytes", "100KB", "x.heic"], "--lossless and --max-bytes"),
        (["convert", "--to", "png", "--widths", "100,200", "--max-bytes", "100KB", "x.heic"], "--max-bytes needs a lossy format"),
        (["compress", "--to", "gif", "--max-bytes", "100KB", "x.heic"], "invalid value 'gif' for '--to'"),
        (["compress", "--to", "webp", "--max-bytes", "100KB", "--in-place", "x.jpg"],
         "--in-place replaces JPEG and PNG files with files of their own format; with --to webp use -o DIR"),
        (["convert", "--color", "p3", "x.heic"], "invalid value 'p3' for '--color'"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let run = try TestSupport.imgprep(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    /// x265 cannot code a picture smaller than its smallest block: one clear line, no output.
    @Test func heicOutputOfATinyPictureSaysWhy() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(heic)/gps-p3.heic", "--to", "heic", "--max-dimension", "12", "-o", out.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("HEIC output needs at least 16x16 pixels"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }
}
