import Foundation
import Testing
@testable import ImagePrep

/// A JPEG is never made worse: turns and metadata changes keep its DCT coefficients (the pixels of
/// `jpegtran -perfect`, compared pixel for pixel), a re-encode never goes above its quality, and a file
/// already within budget never comes back larger.
@Suite(.serialized) struct LosslessJPEGTests {
    /// jpegtran's option for the turn that undoes each EXIF Orientation.
    static let jpegtranOptions: [Int: [String]] = [
        2: ["-flip", "horizontal"], 3: ["-rotate", "180"], 4: ["-flip", "vertical"], 5: ["-transpose"],
        6: ["-rotate", "90"], 7: ["-transverse"], 8: ["-rotate", "270"],
    ]
    static let haveTools = ["jpegtran", "cjpeg", "djpeg", "exiftool"].allSatisfy(TestSupport.toolExists)

    /// The P3 fixture (320x240, 4:2:0: whole MCUs both ways) as a camera would write it: libjpeg's
    /// standard tables at `quality` and standard Huffman tables (cjpeg), the fixture's EXIF, XMP and ICC
    /// profile, tagged `orientation`.
    static func turnedJPEG(in dir: URL, orientation: Int, quality: Int = 85, name: String = "turned.jpg") throws -> String {
        let base = dir.appendingPathComponent("base-\(name)").path
        let made = try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path,
                                            "-q", "100", "-o", base, "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        let path = dir.appendingPathComponent(name).path
        let encoded = try TestSupport.run("sh", ["-c", "djpeg \"$0\" | cjpeg -quality \(quality) > \"$1\"", base, path])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        let tagged = try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-TagsFromFile", base, "-all:all", "-icc_profile",
                                                      "-IFD0:Orientation#=\(orientation)", path])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        try FileManager.default.removeItem(atPath: base)
        return path
    }

    static func jpegtran(_ source: String, orientation: Int, into path: String) throws {
        let options = try #require(jpegtranOptions[orientation])
        let run = try TestSupport.run("sh", ["-c", "jpegtran \(options.joined(separator: " ")) -perfect -copy none \"$0\" > \"$1\"", source, path])
        #expect(run.status == 0, "jpegtran: \(run.stderr)")
    }

    @Test(.enabled(if: haveTools, "needs jpegtran (libjpeg-turbo-progs) and exiftool"), arguments: 2...8)
    func turnsLikeJpegtranPerfectPixelForPixel(orientation: Int) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.turnedJPEG(in: dir, orientation: orientation)
        let run = try TestSupport.imgprep(["convert", source, "-o", dir.appendingPathComponent("out").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try BatchTests.jsonLines(run.stdout).first)
        #expect(line["lossless"] as? Bool == true && line["encodes"] as? Int == 0, "\(line)")
        #expect(line["quality"] as? Int == 85, "the source's own quality: \(line)")
        let reference = dir.appendingPathComponent("reference.jpg").path
        try Self.jpegtran(source, orientation: orientation, into: reference)
        let output = dir.appendingPathComponent("out/turned.jpg").path
        let (ours, theirs) = (try TestSupport.decode(output), try TestSupport.decode(reference))
        #expect(ours.width == theirs.width && ours.height == theirs.height)
        #expect(ours.pixels == theirs.pixels, "orientation \(orientation): pixels differ from jpegtran -perfect")
        let tags = try TestSupport.exiftool(output)
        #expect(tags["IFD0:Orientation"] as? Int == 1)
        #expect(tags["File:ImageWidth"] as? Int == ours.width && tags["File:ImageHeight"] as? Int == ours.height, "\(tags)")
        #expect(tags["GPS:GPSLatitude"] != nil && tags["ICC_Profile:ProfileDescription"] as? String == "Display P3")
    }

    /// A side that is not whole MCUs (here 4:2:0 with a height of 232 = 14.5 MCUs) cannot turn by 90°
    /// losslessly: the file is re-encoded upright at its own quality (no quality was asked for), complete.
    @Test(.enabled(if: haveTools, "needs jpegtran (libjpeg-turbo-progs) and exiftool"))
    func anImperfectTurnIsReencodedAtTheSourceQuality() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let made = try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path,
                                            "--max-dimension", "310", "-q", "80", "-o", dir.path, "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        let source = dir.appendingPathComponent("gps-p3.jpg").path
        #expect(try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-IFD0:Orientation#=6", source]).status == 0)
        let notPerfect = try TestSupport.run("sh", ["-c", "jpegtran -rotate 90 -perfect \"$0\" > /dev/null", source])
        #expect(notPerfect.status != 0, "jpegtran -perfect should refuse it too")
        let stored = try TestSupport.decode(source)
        #expect(stored.height % 16 != 0, "the fixture should not turn perfectly: \(stored.width)x\(stored.height)")
        let run = try TestSupport.imgprep(["convert", source, "-o", dir.appendingPathComponent("out").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try BatchTests.jsonLines(run.stdout).first)
        #expect(line["lossless"] == nil && line["quality"] as? Int == 80, "\(line)")
        #expect(line["width"] as? Int == stored.height && line["height"] as? Int == stored.width, "\(line)")
        BatchTests.expectCompleteJPEG(dir.appendingPathComponent("out/gps-p3.jpg").path)
    }

    /// The issue's case: a q85 JPEG within budget but with Orientation 6 came back at q95 and 30% bigger,
    /// even in place. Now it is turned losslessly, no larger than it was, and nothing else changes.
    @Test(.enabled(if: haveTools, "needs jpegtran (libjpeg-turbo-progs) and exiftool"))
    func compressInPlaceTurnsWithoutGrowingOrReencoding() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.turnedJPEG(in: dir, orientation: 6)
        let reference = dir.appendingPathComponent("reference.jpg").path
        try Self.jpegtran(source, orientation: 6, into: reference)
        let before = try TestSupport.exiftool(source)
        let size = try TestSupport.bytes(source).count
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--in-place", source, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try BatchTests.jsonLines(run.stdout).first)
        #expect(line["lossless"] as? Bool == true && line["quality"] as? Int == 85, "\(line)")
        #expect(try TestSupport.bytes(source).count <= size)
        #expect(try TestSupport.decode(source).pixels == (try TestSupport.decode(reference)).pixels)
        // Only what had to change did: Orientation and the pixel dimensions' order.
        let after = try TestSupport.exiftool(source)
        for (tag, value) in before where tag.hasPrefix("IFD0:") || tag.hasPrefix("ExifIFD:") || tag.hasPrefix("GPS:") || tag.hasPrefix("XMP-") {
            switch tag {
            case "IFD0:Orientation": #expect(after[tag] as? Int == 1)
            case "ExifIFD:ExifImageWidth": #expect(after[tag] as? Int == before["ExifIFD:ExifImageHeight"] as? Int)
            case "ExifIFD:ExifImageHeight": #expect(after[tag] as? Int == before["ExifIFD:ExifImageWidth"] as? Int)
            default: #expect("\(after[tag] ?? "missing")" == "\(value)", "\(tag) changed")
            }
        }
    }

    /// A turned block codes a little differently, so an already optimised JPEG (imgprep's own) can grow by a
    /// few percent when turned losslessly. Within its budget it must not grow at all: it is re-encoded, at
    /// no higher quality, to no more than its size.
    @Test(.enabled(if: haveTools, "needs jpegtran (libjpeg-turbo-progs) and exiftool"))
    func aTurnThatWouldGrowIsReencodedNoLarger() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("own.jpg").path
        #expect(try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path,
                                         "-q", "85", "-o", source, "--quiet"]).status == 0)
        #expect(try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-IFD0:Orientation#=6", source]).status == 0)
        let size = try TestSupport.bytes(source).count
        let grown = try TestSupport.run("sh", ["-c", "jpegtran -rotate 90 -perfect -optimize -copy all \"$0\" | wc -c", source])
        #expect(Int(grown.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > size, "the lossless turn should grow this file")
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", source, "-o", dir.appendingPathComponent("out").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try BatchTests.jsonLines(run.stdout).first)
        #expect(line["lossless"] == nil && (line["quality"] as? Int ?? 100) <= 85, "\(line)")
        #expect((line["bytes"] as? Int ?? .max) <= size, "\(line)")
        #expect(line["width"] as? Int == 240 && line["height"] as? Int == 320)
    }

    /// Only a metadata change (Orientation 1, --strip-location): the entropy-coded data is kept byte for byte.
    @Test(.enabled(if: haveTools, "needs jpegtran (libjpeg-turbo-progs) and exiftool"))
    func aMetadataChangeKeepsTheScanBytes() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.turnedJPEG(in: dir, orientation: 1)
        let original = try TestSupport.bytes(source)
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--strip-location", "--in-place", source, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let edited = try TestSupport.bytes(source)
        #expect(edited.count <= original.count)
        func scan(_ jpeg: [UInt8]) -> ArraySlice<UInt8> {
            let sos = JPEGCodecTests.offsetsOfSOS(in: jpeg).first ?? 0
            return jpeg[sos...]
        }
        #expect(scan(edited) == scan(original), "the picture data changed")
        #expect(try TestSupport.exiftool(source)["GPS:GPSLatitude"] == nil)
    }

    /// On every JPEG of the corpus, `compress --max-bytes 1MB` writes nothing larger than an input that
    /// already fit, and nothing at a quality above the input's (as ImageMagick's `identify` reads both).
    @Test(.enabled(if: TestSupport.corpus != nil && TestSupport.toolExists("identify"), "no shared corpus or no ImageMagick"))
    func corpusJpegsAreNeverMadeWorse() throws {
        let corpus = try #require(TestSupport.corpus).appendingPathComponent("jpeg")
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
        #expect(names.count >= 20)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "-o", dir.path, "--json"] + names.map { corpus.appendingPathComponent($0).path })
        func quality(_ path: String) throws -> Int? {
            Int(try TestSupport.run("identify", ["-format", "%Q", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var lossless = 0
        for line in try BatchTests.jsonLines(run.stdout) where line["summary"] == nil {
            let input = try #require(line["input"] as? String), output = try #require(line["output"] as? String)
            // A file that decodes to nothing fails as it would in any conversion, rather than being copied.
            if line["status"] as? String == "failed" {
                #expect(WholeCorpusBatchTests.knownUnreadable.contains("jpeg/" + (input as NSString).lastPathComponent), "\(input): \(line)")
                continue
            }
            let (inSize, outSize) = (try TestSupport.bytes(input).count, try TestSupport.bytes(output).count)
            #expect(outSize <= 1_000_000, "\(input): \(outSize) bytes")
            if inSize <= 1_000_000 { #expect(outSize <= inSize, "\(input): \(inSize) -> \(outSize) bytes") }
            let (inQuality, outQuality) = (try quality(input), try quality(output))
            #expect((outQuality ?? 101) <= (inQuality ?? 100), "\(input): quality \(inQuality ?? -1) -> \(outQuality ?? -1)")
            if line["lossless"] as? Bool == true { lossless += 1 }
        }
        #expect(lossless >= 5, "the turned corpus photos should mostly turn losslessly")
    }

    /// `convert -q N` of a turned JPEG is never larger than `vips autorot` + save at the same quality for the
    /// same fidelity: the two table choices are compared (quality 48 on this photo: 209 KB before, 178 KB
    /// for vips).
    @Test(.enabled(if: TestSupport.corpus != nil && TestSupport.toolExists("vips"), "no shared corpus or no vips"),
          arguments: [40, 48, 50, 73, 85])
    func aTurnedJpegAtAGivenQualityIsNoLargerThanVipsForTheSameFidelity(quality: Int) throws {
        let source = try #require(TestSupport.corpus).appendingPathComponent("jpeg/recurser__Portrait_6.jpg").path
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ours = dir.appendingPathComponent("ours.jpg").path, theirs = dir.appendingPathComponent("vips.jpg").path
        #expect(try TestSupport.imgprep(["convert", source, "-q", "\(quality)", "--strip-metadata", "-o", ours]).status == 0)
        let turned = dir.appendingPathComponent("turned.v").path
        #expect(try TestSupport.run("vips", ["autorot", source, turned]).status == 0)
        #expect(try TestSupport.run("vips", ["copy", turned, "\(theirs)[Q=\(quality),optimize_coding,strip]"]).status == 0)
        // The reference: the source's own pixels, turned upright.
        let upright = ImagePrep.oriented(try TestSupport.decode(source), .right)
        let (ourSize, theirSize) = (try TestSupport.bytes(ours).count, try TestSupport.bytes(theirs).count)
        let (ourPSNR, theirPSNR) = (TestSupport.psnr(try TestSupport.decode(ours), upright), TestSupport.psnr(try TestSupport.decode(theirs), upright))
        // Bigger only when clearly more faithful; smaller may cost a little fidelity (q40: 11% smaller, 0.3 dB).
        #expect(Double(ourSize) <= Double(theirSize) * 1.01 || ourPSNR >= theirPSNR + 0.3,
                "q\(quality): \(ourSize) bytes at \(ourPSNR) dB, vips \(theirSize) bytes at \(theirPSNR) dB")
        #expect(ourPSNR >= theirPSNR - 1, "q\(quality): \(ourPSNR) dB against vips's \(theirPSNR) dB")
    }
}
