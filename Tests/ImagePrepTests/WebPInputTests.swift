import Foundation
import Testing
@testable import ImagePrep

/// WebP input: sniffed by content, decoded by libwebp (lossy, lossless, alpha, the first frame of an
/// animation), with its EXIF, XMP and ICC chunks; damaged files fail with one line.
@Suite struct WebPInputTests {
    let webp = TestSupport.fixtures.appendingPathComponent("webp").path

    @Test func lossyWebPWithMetadataConvertsToJpegKeepingExifXmpAndIcc() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(webp)/exif-icc.webp"
        let run = try TestSupport.imgprep(["convert", source, "--to", "jpeg", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let output = out.appendingPathComponent("exif-icc.jpg").path
        let before = try TestSupport.exiftool(source), after = try TestSupport.exiftool(output)
        for tag in ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "GPS:GPSLatitude", "GPS:GPSLongitude", "XMP-dc:Title"] {
            #expect(before[tag] != nil, "fixture lacks \(tag)")
            #expect("\(after[tag] ?? "missing")" == "\(before[tag] ?? "")", "\(tag)")
        }
        #expect(after["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        let iccBefore = try TestSupport.capture("exiftool", ["-icc_profile", "-b", source]).output
        let iccAfter = try TestSupport.capture("exiftool", ["-icc_profile", "-b", output]).output
        #expect(!iccBefore.isEmpty && iccBefore == iccAfter, "ICC profile not kept byte for byte")
        // The pixels are dwebp's (libwebp decodes the same way), then re-encoded as JPEG.
        let reference = out.appendingPathComponent("dwebp.png").path
        #expect(try TestSupport.run("dwebp", [source, "-o", reference]).status == 0)
        #expect(TestSupport.psnr(try TestSupport.decode(output), try TestSupport.decode(reference)) > 35)
    }

    @Test func exifOrientationIsAppliedAndReset() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(webp)/orientation-6.webp", "--to", "png", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let pixels = try TestSupport.decode(out.appendingPathComponent("orientation-6.png").path)
        #expect((pixels.width, pixels.height) == (160, 240))
        // The red block, stored top-left, is top-right once turned 90° clockwise.
        let topRight = Array(pixels.pixels[(pixels.width - 10) * 3..<(pixels.width - 10) * 3 + 3])
        #expect(topRight[0] > 200 && topRight[1] < 60 && topRight[2] < 60, "\(topRight)")
        #expect(try TestSupport.exiftool(out.appendingPathComponent("orientation-6.png").path)["IFD0:Orientation"] as? Int == 1)
    }

    @Test func losslessAlphaComesOutExactly() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(webp)/lossless-alpha.webp"
        let run = try TestSupport.imgprep(["convert", source, "--to", "png", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let ours = try TestSupport.decode(out.appendingPathComponent("lossless-alpha.png").path)
        let reference = out.appendingPathComponent("dwebp.png").path
        #expect(try TestSupport.run("dwebp", [source, "-o", reference]).status == 0)
        let theirs = try TestSupport.decode(reference)
        #expect(ours.channels == 4 && theirs.channels == 4)
        #expect(ours.pixels == theirs.pixels)
    }

    @Test func animatedWebPGivesItsFirstFrameWithAWarning() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(webp)/animated.webp", "--to", "png", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("animated WebP (2 frames): converted the first frame"), "\(run.stderr)")
        let pixels = try TestSupport.decode(out.appendingPathComponent("animated.png").path)
        #expect((pixels.width, pixels.height, pixels.channels) == (48, 32, 3))
        #expect(Array(pixels.pixels[0..<3]) == [255, 0, 0], "the first frame is red")
    }

    @Test func infoDescribesWebP() throws {
        let run = try TestSupport.imgprep(["info", "\(webp)/exif-icc.webp", "\(webp)/animated.webp"])
        #expect(run.status == 0, "\(run.stderr)")
        for phrase in ["WebP (lossy)", "320x240", "\"Display P3\"", "Fixture Cam 1", "WebP (animated)", "2 frames"] {
            #expect(run.stdout.contains(phrase), "\(phrase) in \(run.stdout)")
        }
    }

    @Test func truncatedWebPFailsWithOneLineAndWritesNothing() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let bad = TestSupport.fixtures.appendingPathComponent("bad/truncated.webp").path
        let run = try TestSupport.imgprep(["convert", bad, "\(webp)/exif-icc.webp", "-o", out.path])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("truncated.webp") }
        #expect(lines.count == 1 && lines[0].contains("libwebp"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["exif-icc.jpg"])
    }

    /// Every byte may be hostile: truncations and random damage anywhere in the file (chunk sizes,
    /// VP8X flags, the bitstream) give an error or a picture, never a crash.
    @Test func damagedWebPNeverCrashes() throws {
        let file = try TestSupport.bytes("\(webp)/exif-icc.webp")
        var random = SplitMix64(seed: 0x5EB9)
        var failures = 0
        for round in 0..<400 {
            var damaged = file
            if round % 4 == 0 {
                damaged = Array(file.prefix(random.next(below: file.count)))
            } else {
                for _ in 0..<(1 + random.next(below: 4)) {
                    damaged[random.next(below: min(file.count, round % 2 == 0 ? 64 : file.count))] = UInt8(random.next(below: 256))
                }
            }
            do {
                let decoded = try WebPDecoder().decode(damaged, options: DecodeOptions(maxPixels: 1 << 24))
                #expect(decoded.content.width > 0 && decoded.content.height > 0)
            } catch let error as ImagePrepError {
                failures += 1
                #expect(error.description.contains("libwebp") || error.kind == .tooLarge, "\(error)")
            }
        }
        #expect(failures > 50, "the damage should break many files (\(failures))")
    }

    /// compress --to webp leaves a still WebP that already fits byte for byte, as it does a JPEG.
    @Test func webPWithinBudgetIsLeftByteForByte() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = "\(webp)/exif-icc.webp"
        let run = try TestSupport.imgprep(["compress", "--to", "webp", "--max-bytes", "100KB", source, "-o", out.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"unchanged\":true"), "\(run.stdout)")
        #expect(try TestSupport.bytes(out.appendingPathComponent("exif-icc.webp").path) == (try TestSupport.bytes(source)))
        // Turned by its EXIF Orientation: re-encoded upright instead.
        let turned = try TestSupport.imgprep(["compress", "--to", "webp", "--max-bytes", "100KB", "\(webp)/orientation-6.webp",
                                              "-o", out.path, "--json"])
        #expect(turned.status == 0 && !turned.stdout.contains("\"unchanged\":true"), "\(turned.stdout)")
    }
}
