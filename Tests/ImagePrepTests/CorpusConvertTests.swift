import Foundation
import Testing
@testable import ImagePrep

/// `imgprep convert` on the shared corpus of real photos (read-only, never copied into the repo),
/// checked against libheif's own heif-convert (pixels, upright size), exiftool (EXIF, MakerNotes, XMP,
/// ICC) and vipsthumbnail (resizing). Skipped when this machine has no corpus.
@Suite(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS or add ../shared/corpus): corpus tests skipped"))
struct CorpusConvertTests {
    /// Files over this many pixels are left out of the heif-convert pixel comparison (too slow in debug).
    static let pixelComparisonLimit = 50_000_000

    /// Every HEIF/AVIF in corpus heic/ and avif/ (by extension: heic/ may hold stray files of other types).
    static let heifInputs: [String] = {
        guard let corpus = TestSupport.corpus else { return [] }
        return ["heic", "avif"].flatMap { directory -> [String] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(directory).path)) ?? []
            return names.filter { ["heic", "heif", "hif", "avif", "avifs"].contains(($0 as NSString).pathExtension.lowercased()) }
                .map { "\(directory)/\($0)" }
        }.sorted().filter { relative in
            // Pictures too big to compare are covered by `hugeGridKeepsExifAndIsUpright` instead.
            guard let size = CorpusSupport.manifestSize(CorpusSupport.features(relative)) else { return true }
            return size.width * size.height <= pixelComparisonLimit
        }
    }()

    // MARK: 1–5: every readable HEIF/AVIF photo, against heif-convert

    @Test(.enabled(if: TestSupport.toolExists("heif-convert"), "heif-convert (libheif-examples) is not installed"),
          arguments: heifInputs)
    func heifPhotoMatchesHeifConvert(_ relative: String) throws {
        let source = try #require(CorpusSupport.path(relative))
        let features = CorpusSupport.features(relative)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }

        // The reference: heif-convert writes every top-level image (ref-N.png when there are several);
        // heif-info lists them in the same order and marks the primary one.
        let reference = try CorpusSupport.heifConvertPrimary(source, into: dir)
        let outDir = dir.appendingPathComponent("out")
        let run = try TestSupport.imgprep(["convert", source, "--to", "jpeg", "--quality", "95", "-o", outDir.path])
        // What libheif 1.15 cannot read must fail with one line naming the file, not convert to something.
        if WholeCorpusBatchTests.knownUnreadable.contains(relative) {
            #expect(reference == nil, "\(relative): heif-convert reads it now: take it off WholeCorpusBatchTests.knownUnreadable")
            #expect(run.status == 1, "\(relative) should not convert: \(run.stderr)")
            let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("imgprep: \(source): ") }
            #expect(lines.count == 1, "\(relative): \(run.stderr)")
            return
        }
        #expect(run.status == 0, "\(relative): imgprep failed: \(run.stderr)")
        guard run.status == 0 else { return }
        let output = CorpusSupport.outputPath(source, in: outDir, ext: "jpg")
        let actual = try TestSupport.decode(output)

        // 1. Upright size and 2. pixels, against libheif's own decode. Without one (heif-convert 1.15 cannot
        // read the structure of some animations and gain-map photos, which imgprep reads) the MANIFEST must
        // say so, and 3-5 are still checked.
        if let reference {
            try Self.expectMatchesHeifConvert(actual, reference: reference, relative: relative, source: source, features: features, in: dir)
        } else {
            #expect(CorpusSupport.heifConvertColumn(relative).hasPrefix("FAIL"),
                    "\(relative): heif-convert failed, but the MANIFEST says it read the file: \(CorpusSupport.heifConvertColumn(relative))")
        }

        // 3. EXIF and MakerNotes, 4. XMP. (First make sure the comparison sees the camera's EXIF at all.)
        if features.contains("camera=") {
            let exifTags = try CorpusSupport.tags(source, ["-EXIF:all"], exifOnly: true)
            #expect(exifTags.count > 5 && exifTags["IFD0:Make"] != nil, "\(relative): exiftool query found no EXIF: \(exifTags.keys.sorted())")
        }
        let problems = try CorpusSupport.exifProblems(source: source, output: output, width: actual.width,
                                                       height: actual.height, stderr: run.stderr)
            + (try CorpusSupport.xmpProblems(source: source, output: output))
        #expect(problems.isEmpty, "\(relative):\n\(problems.joined(separator: "\n"))")

        // 5. Colour: an ICC profile is kept byte for byte; nclx-only sources get a synthesized profile.
        try CorpusSupport.checkColour(relative: relative, source: source, output: output, features: features)
    }

    /// 1. The upright size equals libheif's (irot/imir/clap applied), and 2. the pixels match.
    static func expectMatchesHeifConvert(_ actual: PixelBuffer, reference: String, relative: String, source: String,
                                         features: String, in dir: URL) throws {
        let expected = try TestSupport.decode(reference)
        let sameSize = actual.width == expected.width && actual.height == expected.height
        #expect(sameSize, "\(relative): output \(actual.width)x\(actual.height), heif-convert \(expected.width)x\(expected.height)")

        // 2. Pixels. Sources with alpha: our JPEG is flattened onto white, so flatten the reference too.
        // Device photos must match at --quality 95 within 42 dB (libjpeg's 4:2:0 loss on camera pictures is
        // 46-50 dB). Synthetic test images with hard colour edges lose 27-41 dB to any q95 4:2:0 encoder
        // (ImageMagick's `convert -quality 95` of heif-convert's PNG scores the same), so for them 42 dB is
        // checked on a second conversion with the encoder's loss made negligible (--quality 100
        // --subsampling 444): that still tells decode, colour, orientation and bit-depth errors apart.
        // HDR sources (PQ/HLG transfer) are tone-mapped to SDR on purpose, unlike heif-convert's raw
        // samples, so only their size is compared.
        let flat = expected.hasAlpha ? ImagePipeline.flattened(expected, onto: RGBColor(red: 255, green: 255, blue: 255)) : expected
        let isHDR = features.range(of: #"colr=nclx:\d+/(16|18)/"#, options: .regularExpression) != nil
        let isDevicePhoto = features.contains("camera=") && !CorpusSupport.notes(relative).contains("synthetic")
        if sameSize && !isHDR {
            let psnr95 = TestSupport.psnr(actual, flat)
            #expect(psnr95 >= (isDevicePhoto ? 42 : 25), "\(relative): q95 output PSNR \(String(format: "%.2f", psnr95)) dB against heif-convert")
            if !isDevicePhoto {
                let fineDir = dir.appendingPathComponent("fine")
                let fine = try TestSupport.imgprep(["convert", source, "--to", "jpeg", "--quality", "100", "--subsampling", "444", "-o", fineDir.path])
                #expect(fine.status == 0, "\(relative): \(fine.stderr)")
                if fine.status == 0 {
                    let psnr = TestSupport.psnr(try TestSupport.decode(CorpusSupport.outputPath(source, in: fineDir, ext: "jpg")), flat)
                    #expect(psnr >= 42, "\(relative): q100 4:4:4 output PSNR \(String(format: "%.2f", psnr)) dB against heif-convert")
                }
            }
        }
    }

    /// The 200 MP Samsung grid (16320x12240, irot 270): no heif-convert comparison (far too slow),
    /// but the upright size and the EXIF are cheap enough to check (~7 s in debug).
    @Test(.enabled(if: CorpusSupport.has("heic/pillow_heif__200MP.heic"), "heic/pillow_heif__200MP.heic is not in the corpus"))
    func hugeGridKeepsExifAndIsUpright() throws {
        let relative = "heic/pillow_heif__200MP.heic"
        guard let (source, output, run, dir) = try CorpusSupport.converted(relative, ["--to", "jpeg", "--quality", "95"]) else { return }
        defer { try? FileManager.default.removeItem(at: dir) }
        let tags = try TestSupport.exiftool(output, ["-File:ImageWidth", "-File:ImageHeight"])
        // Stored 16320x12240 with irot 270 → upright portrait.
        #expect(tags["File:ImageWidth"] as? Int == 12240 && tags["File:ImageHeight"] as? Int == 16320, "\(tags)")
        let problems = try CorpusSupport.exifProblems(source: source, output: output, width: 12240, height: 16320,
                                                       stderr: run.stderr)
            + (try CorpusSupport.xmpProblems(source: source, output: output))
        #expect(problems.isEmpty, "\(relative):\n\(problems.joined(separator: "\n"))")
        try CorpusSupport.checkColour(relative: relative, source: source, output: output, features: CorpusSupport.features(relative))
    }

    // MARK: 6. PNG output keeps the ICC profile and the alpha channel

    @Test(.enabled(if: CorpusSupport.has("heic/nuke__img_751.heic", "heic/libheif__with-alpha-512x512.heic"), "the two photos are not in the corpus"),
          .enabled(if: TestSupport.toolExists("heif-convert"), "heif-convert (libheif-examples) is not installed"))
    func pngOutputKeepsIccByteForByteAndAlpha() throws {
        let photo = "heic/nuke__img_751.heic", alpha = "heic/libheif__with-alpha-512x512.heic"
        let photoPath = try #require(CorpusSupport.path(photo)), alphaPath = try #require(CorpusSupport.path(alpha))
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["convert", photoPath, alphaPath, "--to", "png", "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")

        for (relative, source) in [(photo, photoPath), (alpha, alphaPath)] {
            let output = CorpusSupport.outputPath(source, in: dir, ext: "png")
            let before = try CorpusSupport.icc(source), after = try CorpusSupport.icc(output)
            #expect(!before.isEmpty, "\(relative) should have an ICC profile")
            #expect(before == after, "\(relative): iCCP differs (\(before.count) vs \(after.count) bytes)")
        }
        let photoOut = CorpusSupport.outputPath(photoPath, in: dir, ext: "png")
        let problems = try CorpusSupport.exifProblems(source: photoPath, output: photoOut, width: 1008, height: 756, stderr: run.stderr)
            + (try CorpusSupport.xmpProblems(source: photoPath, output: photoOut))
        #expect(problems.isEmpty, "\(problems)")

        // Alpha kept: same size and alpha channel as heif-convert's RGBA PNG.
        let image = try TestSupport.decode(CorpusSupport.outputPath(alphaPath, in: dir, ext: "png"))
        #expect(image.channels == 4, "alpha dropped from the PNG")
        let reference = try #require(try CorpusSupport.heifConvertPrimary(alphaPath, into: dir), "heif-convert cannot read \(alpha)")
        guard image.channels == 4 else { return }
        let expected = try TestSupport.decode(reference)
        #expect(expected.channels == 4 && expected.width == image.width && expected.height == image.height)
        guard expected.channels == 4 && expected.width == image.width && expected.height == image.height else { return }
        var worst = 0, transparent = 0
        for i in 0..<(image.width * image.height) {
            worst = max(worst, abs(Int(image.pixels[i * 4 + 3]) - Int(expected.pixels[i * 4 + 3])))
            if image.pixels[i * 4 + 3] == 0 { transparent += 1 }
        }
        #expect(worst <= 1, "alpha differs from heif-convert's by up to \(worst)")
        #expect(transparent > 0, "the alpha test image should have transparent pixels")
        #expect(TestSupport.psnr(image, expected) >= 42)
    }

    /// nclx-only sources get a synthesized ICC profile; it must be well formed (PCS illuminant D50 at
    /// header bytes 68–79), and PNG output, where libpng checks the profile, must work.
    @Test(.enabled(if: CorpusSupport.has("avif/pillow__transparency.avif"), "avif/pillow__transparency.avif is not in the corpus"))
    func synthesizedProfileIsWellFormedAndPngOutputWorks() throws {
        let relative = "avif/pillow__transparency.avif"  // nclx 1/13/6, with alpha
        let source = try #require(CorpusSupport.path(relative))
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = try TestSupport.imgprep(["convert", source, "--to", "jpeg", "-o", dir.path])
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        let header = try TestSupport.exiftool(CorpusSupport.outputPath(source, in: dir, ext: "jpg"), ["-ICC-header:ConnectionSpaceIlluminant"])
        let illuminant = "\(header["ICC-header:ConnectionSpaceIlluminant"] ?? "")".split(separator: " ").compactMap { Double($0) }
        #expect(illuminant.count == 3 && zip(illuminant, [0.9642, 1.0, 0.8249]).allSatisfy { abs($0 - $1) <= 0.001 },
                "synthesized ICC header has PCS illuminant \(illuminant), want D50 (0.9642 1 0.8249)")

        let png = try TestSupport.imgprep(["convert", source, "--to", "png", "-o", dir.path])
        #expect(png.status == 0, "PNG of an nclx source failed: \(png.stderr)")
        guard png.status == 0 else { return }
        let image = try TestSupport.decode(CorpusSupport.outputPath(source, in: dir, ext: "png"))
        #expect(image.channels == 4, "alpha dropped")
        let icc = try CorpusSupport.icc(CorpusSupport.outputPath(source, in: dir, ext: "png"))
        #expect(!icc.isEmpty, "no iCCP in the PNG of an nclx source")
    }

    // MARK: 7. JPEG inputs: EXIF orientation applied, written as 1

    @Test(.enabled(if: CorpusSupport.has("jpeg/recurser__Landscape_1.jpg", "jpeg/recurser__Landscape_6.jpg"), "the recurser orientation files are not in the corpus"),
          .enabled(if: TestSupport.toolExists("vips"), "vips (libvips-tools) is not installed"))
    func recurserOrientationsAllComeOutUpright() throws {
        let names = (0...8).map { "jpeg/recurser__Landscape_\($0).jpg" }.filter { CorpusSupport.path($0) != nil }
        let portraits = (0...8).map { "jpeg/recurser__Portrait_\($0).jpg" }.filter { CorpusSupport.path($0) != nil }
        let landscape1 = try #require(CorpusSupport.path("jpeg/recurser__Landscape_1.jpg"))
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sources = (names + portraits).compactMap(CorpusSupport.path)
        let run = try TestSupport.imgprep(["convert"] + sources + ["--to", "jpeg", "--quality", "95", "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")

        let upright = try TestSupport.decode(landscape1)
        #expect(upright.width == 1800 && upright.height == 1200)
        var portraitReference: PixelBuffer?
        for relative in names + portraits {
            let output = CorpusSupport.outputPath(CorpusSupport.path(relative)!, in: dir, ext: "jpg")
            let image = try TestSupport.decode(output)
            let tags = try TestSupport.exiftool(output, ["-IFD0:Orientation"])
            #expect(tags["IFD0:Orientation"] == nil || tags["IFD0:Orientation"] as? Int == 1,
                    "\(relative): Orientation \(tags["IFD0:Orientation"] ?? "")")
            if relative.contains("Landscape") {
                // Orientation 0 is invalid and must be treated as 1.
                #expect(image.width == 1800 && image.height == 1200, "\(relative): \(image.width)x\(image.height)")
                if image.width == 1800 && image.height == 1200 {
                    // The recurser files were each re-encoded separately: the stored Landscape_0 is only
                    // 25.8 dB from Landscape_1, and Landscape_6/8 turned upright by libvips 28.9 dB. So 30 dB
                    // is out of reach even for a perfect tool; a wrong turn or flip scores under 10 dB.
                    let psnr = TestSupport.psnr(image, upright)
                    #expect(psnr >= 24, "\(relative): PSNR \(String(format: "%.2f", psnr)) dB against Landscape_1")
                    try CorpusSupport.expectMatchesVipsAutorotate(image, source: CorpusSupport.path(relative)!, relative: relative, in: dir)
                }
            } else {
                // Portrait_N are stored 1800x1200 and rotated by their orientation to 1200x1800.
                #expect(image.width == 1200 && image.height == 1800, "\(relative): \(image.width)x\(image.height)")
                if image.width == 1200 && image.height == 1800 {
                    try CorpusSupport.expectMatchesVipsAutorotate(image, source: CorpusSupport.path(relative)!, relative: relative, in: dir)
                    if let reference = portraitReference {
                        let psnr = TestSupport.psnr(image, reference)
                        #expect(psnr >= 24, "\(relative): PSNR \(String(format: "%.2f", psnr)) dB against the first portrait")
                    } else {
                        portraitReference = image
                    }
                }
            }
        }
    }

    @Test(.enabled(if: CorpusSupport.has("jpeg/immich__portrait-orientation-6.jpg", "jpeg/nuke__right-orientation.jpeg", "jpeg/libvips__rotation_6.jpg"),
                   "the rotated JPEGs are not in the corpus"),
          arguments: ["jpeg/immich__portrait-orientation-6.jpg", "jpeg/nuke__right-orientation.jpeg", "jpeg/libvips__rotation_6.jpg"])
    func rotatedJpegComesOutUprightWithOrientation1(_ relative: String) throws {
        guard let (source, output, run, dir) = try CorpusSupport.converted(relative, ["--to", "jpeg", "--quality", "95"]) else { return }
        defer { try? FileManager.default.removeItem(at: dir) }
        let stored = try TestSupport.decode(source), image = try TestSupport.decode(output)
        #expect(try TestSupport.exiftool(source, ["-IFD0:Orientation"])["IFD0:Orientation"] as? Int == 6)
        #expect(image.width == stored.height && image.height == stored.width,
                "\(relative): stored \(stored.width)x\(stored.height), output \(image.width)x\(image.height)")
        // Orientation 6: the upright top-left pixel is the stored bottom-left one; compare whole pictures.
        if image.width == stored.height && image.height == stored.width {
            let rotated = CorpusSupport.rotatedClockwise(stored)
            let psnr = TestSupport.psnr(image, rotated)
            #expect(psnr >= 30, "\(relative): PSNR \(String(format: "%.2f", psnr)) dB against the stored pixels turned 90° clockwise")
        }
        let problems = try CorpusSupport.exifProblems(source: source, output: output, width: image.width, height: image.height, stderr: run.stderr)
            + (try CorpusSupport.xmpProblems(source: source, output: output))
        #expect(problems.isEmpty, "\(relative):\n\(problems.joined(separator: "\n"))")
        let after = try TestSupport.exiftool(output, ["-IFD0:Orientation"])
        #expect(after["IFD0:Orientation"] as? Int == 1, "\(relative): \(after)")
        let before = try CorpusSupport.icc(source)
        let iccAfter = try CorpusSupport.icc(output)
        if !before.isEmpty { #expect(iccAfter == before, "\(relative): ICC profile changed") }
    }

    @Test(.enabled(if: CorpusSupport.has("jpeg/nuke__image-p3.jpg"), "jpeg/nuke__image-p3.jpg is not in the corpus"))
    func displayP3JpegKeepsItsProfileAndGps() throws {
        let relative = "jpeg/nuke__image-p3.jpg"
        guard let (source, output, run, dir) = try CorpusSupport.converted(relative, ["--to", "jpeg", "--quality", "95"]) else { return }
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try CorpusSupport.icc(source), after = try CorpusSupport.icc(output)
        #expect(!before.isEmpty && before == after, "Display P3 profile not kept byte for byte")
        #expect(try TestSupport.exiftool(output, ["-ICC_Profile:ProfileDescription"])["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        let gpsBefore = try CorpusSupport.tags(source, ["-GPS:all"]), gpsAfter = try CorpusSupport.tags(output, ["-GPS:all"])
        #expect(gpsBefore["GPS:GPSLatitude"] != nil && gpsBefore == gpsAfter, "GPS changed: \(gpsBefore) → \(gpsAfter)")
        let problems = try CorpusSupport.exifProblems(source: source, output: output, width: 600, height: 400, stderr: run.stderr)
            + (try CorpusSupport.xmpProblems(source: source, output: output))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    // MARK: 8. --strip-gps and --max-dimension on an iPhone HEIC

    @Test(.enabled(if: CorpusSupport.has("heic/libvips__heic-orientation-6.heic"), "heic/libvips__heic-orientation-6.heic is not in the corpus"))
    func stripGpsOnIphoneHeicRemovesOnlyGps() throws {
        let relative = "heic/libvips__heic-orientation-6.heic"
        guard let (source, output, run, dir) = try CorpusSupport.converted(relative, ["--strip-gps", "--quality", "95"]) else { return }
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try CorpusSupport.tags(source, ["-gps:all", "-xmp:all"])
        #expect(before.keys.contains { $0.hasPrefix("GPS:") }, "the source should have GPS")
        let after = try CorpusSupport.tags(output, ["-gps:all", "-xmp:all"])
        let gps = after.keys.filter { $0.hasPrefix("GPS:") || $0.lowercased().contains(":gps") }
        #expect(gps.isEmpty, "GPS left after --strip-gps: \(gps.sorted())")
        // Everything else equal: compare the rest of EXIF/MakerNotes as if the source had no GPS.
        let problems = try CorpusSupport.exifProblems(source: source, output: output, width: 3024, height: 4032,
                                                       stderr: run.stderr, ignoring: { $0.hasPrefix("GPS:") || $0 == "ExifIFD:GPSInfo" || $0 == "IFD0:GPSInfo" })
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let iccBefore = try CorpusSupport.icc(source), iccAfter = try CorpusSupport.icc(output)
        #expect(iccBefore == iccAfter, "ICC profile changed")
    }

    @Test(.enabled(if: CorpusSupport.has("heic/libvips__heic-orientation-6.heic"), "heic/libvips__heic-orientation-6.heic is not in the corpus"),
          .enabled(if: TestSupport.toolExists("vipsthumbnail"), "vipsthumbnail (libvips-tools) is not installed"))
    func maxDimensionMatchesVipsthumbnail() throws {
        let relative = "heic/libvips__heic-orientation-6.heic"
        guard let (source, output, _, dir) = try CorpusSupport.converted(relative, ["--max-dimension", "2048", "--quality", "95"]) else { return }
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = try TestSupport.decode(output)
        // Stored 4032x3024 with irot 270 (and EXIF orientation 6): upright portrait.
        #expect(image.width == 1536 && image.height == 2048, "\(image.width)x\(image.height)")
        let tags = try TestSupport.exiftool(output, ["-ExifIFD:ExifImageWidth", "-ExifIFD:ExifImageHeight", "-IFD0:Orientation"])
        #expect(tags["ExifIFD:ExifImageWidth"] == nil || (tags["ExifIFD:ExifImageWidth"] as? Int == 1536 && tags["ExifIFD:ExifImageHeight"] as? Int == 2048), "\(tags)")
        #expect(tags["IFD0:Orientation"] as? Int == 1)

        let reference = dir.appendingPathComponent("ref.png").path
        let vips = try TestSupport.run("vipsthumbnail", [source, "-s", "2048", "-o", reference])
        #expect(vips.status == 0, "\(vips.stderr)")
        var expected = try TestSupport.decode(reference)
        // vipsthumbnail gets the upright image from libheif; should a version not rotate, compare like with like.
        if expected.width == image.height && expected.height == image.width { expected = CorpusSupport.rotatedClockwise(expected) }
        #expect(expected.width == image.width && expected.height == image.height)
        if expected.width == image.width && expected.height == image.height {
            let flat = expected.hasAlpha ? ImagePipeline.flattened(expected, onto: RGBColor(red: 255, green: 255, blue: 255)) : expected
            let psnr = TestSupport.psnr(image, flat)
            #expect(psnr >= 38, "PSNR \(String(format: "%.2f", psnr)) dB against vipsthumbnail")
        }
    }
}

/// Corpus look-ups and the exiftool/heif-convert comparisons the corpus tests share.
enum CorpusSupport {
    /// Whether the corpus is here and holds all of these files (for `.enabled(if:)`).
    static func has(_ relatives: String...) -> Bool {
        relatives.allSatisfy { path($0) != nil }
    }

    static func path(_ relative: String) -> String? {
        guard let corpus = TestSupport.corpus else { return nil }
        let path = corpus.appendingPathComponent(relative).path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// MANIFEST.tsv's features (brands, colr, irot, size...), heif_convert and notes columns for a corpus path.
    static let manifest: [String: (features: String, heifConvert: String, notes: String)] = {
        guard let corpus = TestSupport.corpus,
              let text = try? String(contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else { return [:] }
        var result: [String: (features: String, heifConvert: String, notes: String)] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init),
              let column = header.firstIndex(where: { $0.hasPrefix("features") }),
              let heifConvertColumn = header.firstIndex(of: "heif_convert"),
              let notesColumn = header.firstIndex(of: "notes") else { return [:] }
        for line in lines.dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func field(_ index: Int) -> String { fields.count > index ? fields[index] : "" }
            if fields.count > column { result[fields[0]] = (fields[column], field(heifConvertColumn), field(notesColumn)) }
        }
        return result
    }()

    /// MANIFEST.tsv's heif_convert column: "OK (…)" or "FAIL rc=…: why" (heif-convert 1.15 on the file).
    static func heifConvertColumn(_ relative: String) -> String { manifest[relative]?.heifConvert ?? "" }

    static func features(_ relative: String) -> String { manifest[relative]?.features ?? "" }

    /// MANIFEST.tsv's notes column ("synthetic/encoder-generated test image", "DERIVED by us"...).
    static func notes(_ relative: String) -> String { manifest[relative]?.notes ?? "" }

    /// `size=WxH` from the features column.
    static func manifestSize(_ features: String) -> (width: Int, height: Int)? {
        guard let range = features.range(of: "size=") else { return nil }
        let parts = features[range.upperBound...].prefix { $0.isNumber || $0 == "x" }.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { return nil }
        return (w, h)
    }

    /// Runs `imgprep convert SOURCE ARGUMENTS -o DIR` on a corpus file in a fresh directory (the caller
    /// removes it). Callers are enabled only when the corpus has the file; nil when imgprep failed (recorded).
    static func converted(_ relative: String, _ arguments: [String])
        throws -> (source: String, output: String, run: TestSupport.Run, dir: URL)?
    {
        let source = try #require(path(relative), "\(relative) is not in the corpus")
        let dir = try TestSupport.temporaryDirectory()
        let run = try TestSupport.imgprep(["convert", source] + arguments + ["-o", dir.path])
        #expect(run.status == 0, "\(relative): \(run.stderr)")
        guard run.status == 0 else {
            try? FileManager.default.removeItem(at: dir)
            return nil
        }
        return (source, outputPath(source, in: dir, ext: "jpg"), run, dir)
    }

    static func outputPath(_ source: String, in directory: URL, ext: String) -> String {
        let name = ((source as NSString).lastPathComponent as NSString).deletingPathExtension
        return directory.appendingPathComponent("\(name).\(ext)").path
    }

    /// Runs heif-convert to PNG and returns the file holding the primary image, or nil if libheif cannot read it.
    static func heifConvertPrimary(_ source: String, into directory: URL) throws -> String? {
        let base = directory.appendingPathComponent("ref-\(UUID().uuidString.prefix(8))")
        let run = try TestSupport.run("heif-convert", [source, base.path + ".png"])
        guard run.status == 0 else { return nil }
        var path = base.path + ".png"
        if !FileManager.default.fileExists(atPath: path) {
            // Several top-level images: NAME-1.png, NAME-2.png... in heif-info's order.
            let info = try TestSupport.run("heif-info", [source]).stdout
            let images = info.split(separator: "\n").filter { $0.hasPrefix("image:") }
            guard let index = images.firstIndex(where: { $0.contains("primary") }) else { return nil }
            path = base.path + "-\(index + 1).png"
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if let size, size > 0 { return path }
        // heif-convert 1.15 exits 0 but leaves an empty PNG when libpng refuses the ICC profile ("known
        // incorrect sRGB profile": pillow__icc_profile.avif, sdwebimage__TestImage.heic). Then take the same
        // libheif decode through libvips, without the profile (its JPEG would add its own 4:2:0 loss).
        guard TestSupport.toolExists("vips") else { return nil }
        let fallback = base.path + "-vips.png"
        let vips = try TestSupport.run("vips", ["copy", source, fallback + "[strip]"])
        return vips.status == 0 ? fallback : nil
    }

    /// What heif-info says about the primary image's colour: "prof" or "rICC" (ICC), "nclx", or "no".
    /// (exiftool can report another item's profile as the main one, e.g. pillow_heif__zPug_3.heic.)
    static func primaryColourProfile(_ source: String) throws -> String {
        let lines = try TestSupport.run("heif-info", [source]).stdout.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("image:") && $0.contains("primary") }) else { return "?" }
        for line in lines[(start + 1)...] {
            if line.hasPrefix("image:") { break }
            if let range = line.range(of: "color profile: ") { return line[range.upperBound...].trimmingCharacters(in: .whitespaces) }
        }
        return "?"
    }

    /// A program's standard output as bytes (exiftool -b writes binary).
    static func binaryOutput(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
        try TestSupport.capture(executable, arguments).output
    }

    /// The ICC profile exiftool finds (the primary image's for HEIF; iCCP inflated for PNG), empty if none.
    static func icc(_ path: String) throws -> [UInt8] {
        try binaryOutput("exiftool", ["-icc_profile", "-b", path])
    }

    /// exiftool's tags of the main image only, keyed "Group1:Tag", values as text (-n).
    /// exiftool marks metadata of other HEIF items (depth maps, gain maps, the other eye of a spatial
    /// photo) as Doc1, Doc2...: those belong to images we do not write, so only family-3 group Main counts.
    /// `exifOnly` keeps only tags read from the EXIF block (their metadata path runs through an IFD):
    /// exiftool also files Samsung's top-level 'sefd' trailer (motion-photo video, MCC, time stamp)
    /// under MakerNotes, but it is not part of EXIF and a JPEG has nowhere to carry it.
    static func tags(_ path: String, _ selection: [String], exifOnly: Bool = false) throws -> [String: String] {
        let result = try TestSupport.run("exiftool", ["-j", "-n", "-a", "-G1:3:5", "-api", "savepath"] + selection + [path])
        guard let array = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
              let object = array.first else { return [:] }
        var tags: [String: String] = [:]
        for (key, value) in object where key != "SourceFile" {
            let parts = key.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3, let tag = parts.last else { continue }
            let group1 = parts[0], group3 = parts[1], metadataPath = parts.count >= 4 ? parts[2] : ""
            guard group3 == "Main" else { continue }
            if exifOnly && !metadataPath.contains("IFD") { continue }
            tags["\(group1):\(tag)"] = "\(value)"
        }
        return tags
    }

    /// Differences between the source's EXIF/MakerNotes and the output's, other than the ones a
    /// correct conversion makes.
    static func exifProblems(source: String, output: String, width: Int, height: Int, stderr: String,
                             ignoring ignored: (String) -> Bool = { _ in false }) throws -> [String] {
        let selection = ["-EXIF:all", "-MakerNotes:all"]
        let before = try tags(source, selection, exifOnly: true), after = try tags(output, selection, exifOnly: true)
        var problems: [String] = []
        let thumbnailDropped = before.keys.contains { $0.hasPrefix("IFD1:") } && !after.keys.contains { $0.hasPrefix("IFD1:") }
        if thumbnailDropped && !stderr.contains("warning: dropped the EXIF thumbnail") {
            problems.append("EXIF thumbnail (IFD1) dropped without a warning")
        }
        for (key, value) in before.sorted(by: { $0.key < $1.key }) where !ignored(key) {
            switch key {
            case "IFD0:Orientation":
                if let now = after[key], now != "1" { problems.append("IFD0:Orientation is \(now), want 1") }
            case "ExifIFD:ExifImageWidth":
                if let now = after[key], now != "\(width)" { problems.append("ExifImageWidth \(now), output is \(width) wide") }
            case "ExifIFD:ExifImageHeight":
                if let now = after[key], now != "\(height)" { problems.append("ExifImageHeight \(now), output is \(height) high") }
            case "IFD1:ThumbnailOffset":
                // An offset from the TIFF header: it moves whenever the EXIF block is rewritten.
                continue
            case _ where key.hasPrefix("IFD1:") && thumbnailDropped:
                continue  // allowed when the EXIF would not fit in one APP1 segment (warned above)
            default:
                if after[key] != value { problems.append("\(key): \(value.prefix(60)) → \(after[key].map { String($0.prefix(60)) } ?? "missing")") }
            }
        }
        return problems
    }

    /// Differences between the source's main XMP and the output's (XMP-tiff:Orientation must become 1).
    static func xmpProblems(source: String, output: String) throws -> [String] {
        let before = try tags(source, ["-XMP:all"]), after = try tags(output, ["-XMP:all"])
        var problems: [String] = []
        // Gain-map claims (hdrgm, the Container directory) describe the file, not the picture: rewritten around
        // a gain map the output carries, and gone from one that carries none (nothing may claim a map).
        let gainMapClaim = { (key: String) in ["XMP-hdrgm:", "XMP-Container:", "XMP-GContainer:", "XMP-Item:"].contains { key.hasPrefix($0) } }
        let carriesMap = try tags(output, ["-MPF:NumberOfImages"])["MPF0:NumberOfImages"] == "2"
        if !carriesMap {
            problems += after.keys.filter(gainMapClaim).sorted().map { "\($0) claims a gain map the output does not carry" }
        }
        for (key, value) in before.sorted(by: { $0.key < $1.key }) where !gainMapClaim(key) {
            if key == "XMP-tiff:Orientation" {
                if let now = after[key], now != "1" { problems.append("XMP-tiff:Orientation is \(now), want 1") }
            } else if after[key] != value {
                problems.append("\(key): \(value.prefix(60)) → \(after[key].map { String($0.prefix(60)) } ?? "missing")")
            }
        }
        return problems
    }

    /// The red colorant (D50, Bradford-adapted) a synthesized profile must carry for nclx primaries.
    static let redColorants: [Int: [Double]] = [
        1: [0.4361, 0.2225, 0.0139],   // BT.709 / sRGB
        2: [0.4361, 0.2225, 0.0139],   // unspecified: taken as sRGB, as viewers take it
        12: [0.5151, 0.2412, -0.0011], // Display P3
        9: [0.6735, 0.2790, -0.0019],  // BT.2020
    ]

    static func checkColour(relative: String, source: String, output: String, features: String) throws {
        let kind = try primaryColourProfile(source)
        let before = try icc(source), after = try icc(output)
        switch kind {
        case "prof", "rICC":
            #expect(!before.isEmpty && before == after, "\(relative): ICC profile not kept byte for byte (\(before.count) → \(after.count) bytes)")
        case "no":
            // Nothing says what the colours mean: nothing is claimed either (viewers assume sRGB both ways).
            #expect(after.isEmpty, "\(relative): no colour profile in the source, but a \(after.count)-byte one in the output")
        case "nclx":
            // Only nclx colour (on the image or, for grids, on its tiles): we synthesize a profile.
            #expect(!after.isEmpty, "\(relative): nclx source but no ICC profile in the output")
            let numbers = features.range(of: "colr=nclx:").map {
                features[$0.upperBound...].prefix { $0.isNumber || $0 == "/" }.split(separator: "/").compactMap { Int($0) }
            } ?? []
            guard let primaries = numbers.first, let want = redColorants[primaries] else {
                Issue.record("\(relative): nclx primaries \(numbers.first.map(String.init) ?? "missing from the MANIFEST"): add their red colorant to redColorants")
                return
            }
            let tags = try TestSupport.exiftool(output, ["-ICC_Profile:RedMatrixColumn"])
            let red = "\(tags["ICC_Profile:RedMatrixColumn"] ?? "")".split(separator: " ").compactMap { Double($0) }
            #expect(red.count == 3 && zip(red, want).allSatisfy { abs($0 - $1) <= 0.002 },
                    "\(relative): nclx primaries \(primaries): rXYZ \(red), want \(want)")
        default:
            // heif-info cannot read the file (libheif 1.15 refuses some that imgprep repairs first, such as
            // iPhone gain-map photos): the MANIFEST names the primary image's profile.
            guard let range = features.range(of: "colr=ICC:\""),
                  let name = features[range.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init) else {
                Issue.record("\(relative): neither heif-info (\(kind)) nor the MANIFEST names the primary image's colour")
                return
            }
            let tags = try TestSupport.exiftool(output, ["-ICC_Profile:ProfileDescription"])
            #expect(tags["ICC_Profile:ProfileDescription"] as? String == name, "\(relative): output profile \(tags), want \(name)")
        }
    }

    /// Like with like: the same source turned upright by libvips (`vips copy SRC[autorotate]`) must be
    /// the same picture within JPEG noise (≥ 40 dB). Callers are enabled only where libvips-tools is installed.
    static func expectMatchesVipsAutorotate(_ image: PixelBuffer, source: String, relative: String, in dir: URL) throws {
        let reference = dir.appendingPathComponent("vips-\(UUID().uuidString.prefix(8)).png").path
        let run = try TestSupport.run("vips", ["copy", "\(source)[autorotate]", reference])
        #expect(run.status == 0, "\(run.stderr)")
        guard run.status == 0 else { return }
        let expected = try TestSupport.decode(reference)
        #expect(expected.width == image.width && expected.height == image.height,
                "\(relative): libvips upright \(expected.width)x\(expected.height), ours \(image.width)x\(image.height)")
        guard expected.width == image.width && expected.height == image.height else { return }
        let psnr = TestSupport.psnr(image, expected)
        #expect(psnr >= 40, "\(relative): PSNR \(String(format: "%.2f", psnr)) dB against libvips autorotate")
    }

    /// Turns an image 90° clockwise (what EXIF orientation 6 asks for).
    static func rotatedClockwise(_ image: PixelBuffer) -> PixelBuffer {
        let w = image.width, h = image.height, c = image.channels
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        for y in 0..<h {
            for x in 0..<w {
                // Source (x, y) goes to (h - 1 - y, x) in the w-high, h-wide result.
                let dst = (x * h + (h - 1 - y)) * c, src = (y * w + x) * c
                for k in 0..<c { out[dst + k] = image.pixels[src + k] }
            }
        }
        return PixelBuffer(width: h, height: w, channels: c, pixels: out)
    }
}
