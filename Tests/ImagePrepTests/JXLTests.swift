import Foundation
import Testing
@testable import ImagePrep

/// JPEG XL in and out, checked with readers that are not ours: djxl and jxlinfo (libjxl-tools), exiftool,
/// ImageMagick's `compare`, Chromium.
@Suite(.enabled(if: TestSupport.toolExists("djxl") && TestSupport.toolExists("jxlinfo"), "needs libjxl-tools (djxl, jxlinfo)"))
struct JXLTests {
    static let fixtures = TestSupport.fixtures.appendingPathComponent("jxl")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// djxl's decode of `jxl` to PNG, read with our PNG decoder.
    static func djxl(_ jxl: String, in dir: URL) throws -> PixelBuffer {
        let png = dir.appendingPathComponent(UUID().uuidString + ".png").path
        let run = try TestSupport.run("djxl", [jxl, png])
        #expect(run.status == 0, "djxl \(jxl): \(run.stderr)")
        return try TestSupport.decode(png)
    }

    /// jxlinfo's "JPEG XL image, WxH, ..." line.
    static func jxlinfoSize(_ jxl: String) throws -> String? {
        let run = try TestSupport.run("jxlinfo", [jxl])
        return run.stdout.split(separator: "\n").first { $0.hasPrefix("JPEG XL image") }
            .flatMap { $0.split(separator: ",").dropFirst().first }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func sniffsByContentWhateverTheName() throws {
        for name in ["lossy.jxl", "lossless-container.jxl", "alpha.jxl", "recompressed.jxl"] {
            let file = try TestSupport.bytes(Self.fixture(name))
            #expect(try FormatSniffer.sniff(file).get() == .jxl, "\(name)")
        }
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let renamed = dir.appendingPathComponent("photo.png")
        try FileManager.default.copyItem(atPath: Self.fixture("lossy.jxl"), toPath: renamed.path)
        let run = try TestSupport.imgprep(["convert", renamed.path, "--to", "png", "-o", dir.appendingPathComponent("out.png").path])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func headerProbeMatchesLibjxl() throws {
        for (name, width, height, alpha) in [("lossy.jxl", 96, 64, false), ("lossless-container.jxl", 96, 64, false),
                                              ("alpha.jxl", 64, 64, true), ("recompressed.jxl", 160, 120, false)] {
            let file = try TestSupport.bytes(Self.fixture(name))
            let probed = try #require(JXLStructure.header(file), "\(name)")
            #expect(probed == ImageHeader(width: width, height: height, hasAlpha: alpha), "\(name): \(probed)")
            #expect(try JXLDecoder().header(of: file) == probed, "\(name)")
        }
    }

    /// cjxl's files decode to djxl's pixels exactly (lossless, recompressed) or closely (lossy).
    @Test func readsCjxlFiles() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["lossy.jxl", "lossless-container.jxl", "alpha.jxl", "recompressed.jxl"] {
            let decoded = try JXLDecoder().decode(try TestSupport.bytes(Self.fixture(name)), options: DecodeOptions(maxPixels: 1 << 30))
            let reference = try Self.djxl(Self.fixture(name), in: dir)
            let pixels = decoded.pixels
            #expect(pixels.width == reference.width && pixels.height == reference.height, "\(name)")
            #expect(pixels.hasAlpha == (name == "alpha.jxl"), "\(name)")
            #expect(TestSupport.psnr(pixels, reference) > 45, "\(name): \(TestSupport.psnr(pixels, reference)) dB")
            #expect(decoded.orientation == .up)
        }
    }

    /// cjxl stores a JPEG's EXIF and XMP in brotli-compressed `brob` boxes: libjxl decompresses them.
    @Test func readsCompressedMetadataBoxes() throws {
        let decoded = try JXLDecoder().decode(try TestSupport.bytes(Self.fixture("recompressed.jxl")), options: DecodeOptions(maxPixels: 1 << 30))
        let exif = try #require(decoded.metadata.exif)
        #expect(exif.starts(with: [0x49, 0x49, 0x2A, 0x00]) || exif.starts(with: [0x4D, 0x4D, 0x00, 0x2A]))
        #expect(Exif.hasGPS(exif))
        let xmp = String(decoding: try #require(decoded.metadata.xmp), as: UTF8.self)
        #expect(xmp.contains("imgprep jxl fixture"))
    }

    @Test func infoDescribesJXL() throws {
        let run = try TestSupport.imgprep(["info", Self.fixture("recompressed.jxl")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("JPEG XL (lossless JPEG recompression, container)"), "\(run.stdout)")
        #expect(run.stdout.contains("160x120"))
        #expect(run.stdout.contains("GPSPosition:        48.858400° N, 2.294500° E"), "\(run.stdout)")
        #expect(run.stdout.contains("jbrd"))
        let alpha = try TestSupport.imgprep(["info", Self.fixture("alpha.jxl")])
        #expect(alpha.stdout.contains("JPEG XL (lossless or modular, bare codestream)"), "\(alpha.stdout)")
        #expect(alpha.stdout.range(of: #"alpha:\s+yes"#, options: .regularExpression) != nil, "\(alpha.stdout)")
    }

    /// Lossy output: djxl reads it, jxlinfo gives its size, the pixels are close to the source, and exiftool
    /// reads the EXIF (GPS too) and the XMP from the uncompressed boxes; --strip-location removes the GPS.
    @Test func lossyOutputKeepsMetadata() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.fixture("exif.jpg")
        let output = dir.appendingPathComponent("out.jxl").path
        let run = try TestSupport.imgprep(["convert", source, "--to", "jxl", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.jxlinfoSize(output) == "160x120")
        let decoded = try Self.djxl(output, in: dir)
        let psnr = TestSupport.psnr(decoded, try TestSupport.decode(source))
        #expect(psnr > 32, "\(psnr) dB")
        let tags = try TestSupport.exiftool(output)
        #expect(tags["GPS:GPSLatitude"] != nil, "\(tags.keys.sorted())")
        #expect(tags["XMP-dc:Title"] as? String == "imgprep jxl fixture")
        #expect(tags["IFD0:Make"] as? String == "ImgPrepTest")

        let stripped = dir.appendingPathComponent("stripped.jxl").path
        let strip = try TestSupport.imgprep(["convert", source, "--to", "jxl", "--strip-location", "-o", stripped])
        #expect(strip.status == 0, "\(strip.stderr)")
        let strippedTags = try TestSupport.exiftool(stripped)
        #expect(strippedTags.keys.filter { $0.hasPrefix("GPS:") }.isEmpty, "\(strippedTags.keys.sorted())")
        #expect(strippedTags["IFD0:Make"] as? String == "ImgPrepTest")
    }

    /// --lossless from pixels: djxl gives back exactly the source's pixels, alpha included.
    @Test func losslessOutputKeepsEveryPixel() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("alpha.png").path
        #expect(try TestSupport.run("djxl", [Self.fixture("alpha.jxl"), png]).status == 0)
        let output = dir.appendingPathComponent("out.jxl").path
        let run = try TestSupport.imgprep(["convert", png, "--to", "jxl", "--lossless", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let back = try Self.djxl(output, in: dir)
        let source = try TestSupport.decode(png)
        #expect(back.width == source.width && back.height == source.height && back.channels == source.channels)
        #expect(back.pixels == source.pixels)
    }

    /// --lossless from a JPEG that needs no change: the JPEG recompressed; djxl rebuilds it byte for byte,
    /// it is smaller, and exiftool reads its EXIF and XMP (rewritten as plain boxes).
    @Test func losslessJPEGRecompressionIsByteExact() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.fixture("exif.jpg")
        let output = dir.appendingPathComponent("out.jxl").path
        let run = try TestSupport.imgprep(["convert", source, "--to", "jxl", "--lossless", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let back = dir.appendingPathComponent("back.jpg").path
        #expect(try TestSupport.run("djxl", [output, back]).status == 0)
        #expect(try TestSupport.bytes(back) == TestSupport.bytes(source))
        #expect(try TestSupport.bytes(output).count < TestSupport.bytes(source).count)
        let tags = try TestSupport.exiftool(output)
        #expect(tags["GPS:GPSLatitude"] != nil, "\(tags.keys.sorted())")
        #expect(tags["XMP-dc:Title"] as? String == "imgprep jxl fixture")
        #expect(!run.stderr.contains("pixels are stored"), "\(run.stderr)")
        // A change (here --strip-location) takes a pixel encode: no reconstruction box then, and a warning
        // that says why the file is so much larger.
        let changed = dir.appendingPathComponent("changed.jxl").path
        let changing = try TestSupport.imgprep(["convert", source, "--to", "jxl", "--lossless", "--strip-location", "-o", changed])
        #expect(changing.status == 0, "\(changing.stderr)")
        #expect(changing.stderr.contains("--lossless: the JPEG must change"), "\(changing.stderr)")
        let info = try TestSupport.imgprep(["info", changed])
        #expect(!info.stdout.contains("jbrd"), "\(info.stdout)")
        #expect(try TestSupport.exiftool(changed).keys.filter { $0.hasPrefix("GPS:") }.isEmpty)
    }

    /// A header claiming 1,000,000 x 1,000,000 is refused from its header, with one line and status 1.
    @Test func hostileFilesAreRefusedWithOneLine() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let huge = dir.appendingPathComponent("huge.jxl")
        try Data(Self.codestreamHeader(width: 1_000_000, height: 1_000_000)).write(to: huge)
        let probed = try #require(JXLStructure.header(try TestSupport.bytes(huge.path)))
        #expect(probed.width == 1_000_000 && probed.height == 1_000_000)
        let garbage = dir.appendingPathComponent("garbage.jxl")
        var generator = SplitMix64(seed: 7)
        try Data([0xFF, 0x0A] + (0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) }).write(to: garbage)
        let truncated = TestSupport.fixtures.appendingPathComponent("bad/truncated.jxl").path
        for (path, says) in [(huge.path, "over the --max-pixels limit"), (garbage.path, "libjxl"), (truncated, "truncated")] {
            let run = try TestSupport.imgprep(["convert", path, "--to", "png", "-o", dir.appendingPathComponent("out.png").path])
            #expect(run.status == 1, "\(path): status \(run.status)\n\(run.stderr)")
            let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("imgprep:") }
            #expect(lines.count == 1 && lines[0].contains(says), "\(path): \(run.stderr)")
        }
    }

    /// A bare codestream's SizeHeader (large sizes, width by ratio 0) and an all-default ImageMetadata.
    static func codestreamHeader(width: Int, height: Int) -> [UInt8] {
        var bits: [Bool] = []
        func put(_ value: Int, _ count: Int) { for bit in 0..<count { bits.append((value >> bit) & 1 == 1) } }
        put(0, 1)                                   // not div8
        put(3, 2); put(height - 1, 30)              // U32 selector 3: 30 bits + 1
        put(0, 3)                                   // ratio 0: width stored
        put(3, 2); put(width - 1, 30)
        put(1, 1)                                   // ImageMetadata all_default
        put(1, 1)                                   // ColorEncoding all_default ... then padding
        var bytes: [UInt8] = [0xFF, 0x0A]
        for start in stride(from: 0, to: bits.count, by: 8) {
            var byte: UInt8 = 0
            for (index, bit) in bits[start..<min(start + 8, bits.count)].enumerated() where bit { byte |= 1 << index }
            bytes.append(byte)
        }
        return bytes + [UInt8](repeating: 0, count: 64)
    }

    /// compress --to jxl: never over the budget, and quality + 1 does not fit.
    @Test func budgetIsMetAtTheHighestQuality() throws {
        let file = try TestSupport.bytes(Self.fixture("exif.jpg"))
        for budget in [1_200, 1_800, 2_600] {
            var settings = ConversionSettings()
            settings.format = .jxl
            settings.quality = 95
            settings.stripMetadata = true
            settings.budget = ByteBudget(maxBytes: budget)
            let result = try ImagePipeline.prepare(file, settings: settings)
            #expect(result.bytes.count <= budget, "\(budget): \(result.bytes.count)")
            let quality = try #require(result.quality)
            guard quality < 95 else { continue }
            let above = try WebBudgetTests.encode(file, settings: settings, width: result.width, height: result.height, quality: quality + 1)
            #expect(above.count > budget, "\(budget): q\(quality + 1) also fits (\(above.count) bytes)")
        }
    }

    /// Chromium decodes imgprep's JPEG XL and lays it out at its natural size.
    @Test(.enabled(if: TestSupport.toolExists("chromium"), "needs chromium"))
    func chromiumShowsTheOutput() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jxl").path
        #expect(try TestSupport.imgprep(["convert", Self.fixture("exif.jpg"), "--to", "jxl", "-o", output]).status == 0)
        let lossless = dir.appendingPathComponent("lossless.jxl").path
        #expect(try TestSupport.imgprep(["convert", Self.fixture("exif.jpg"), "--to", "jxl", "--lossless", "-o", lossless]).status == 0)
        let page = dir.appendingPathComponent("page.html")
        try """
        <html><body><img src="out.jxl"><img src="lossless.jxl"><pre id="out"></pre><script>
        window.addEventListener('load', () => {
          document.getElementById('out').textContent = [...document.images].map(i => 'size=' + i.naturalWidth + 'x' + i.naturalHeight).join(' ');
        });
        </script></body></html>
        """.write(to: page, atomically: true, encoding: .utf8)
        let profile = dir.appendingPathComponent("profile").path
        let run = try TestSupport.run("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)",
                                                   "--virtual-time-budget=8000", "--allow-file-access-from-files", "--dump-dom", page.absoluteString])
        #expect(run.stdout.contains("size=160x120 size=160x120"), "\(run.stdout)\n\(run.stderr.suffix(2000))")
    }
}

/// Corpus photos (skipped without ../shared/corpus): every JPEG recompressed losslessly comes back byte for
/// byte through djxl and is smaller; HEICs to JPEG XL decode with djxl at the right size.
@Suite(.enabled(if: TestSupport.corpus != nil && TestSupport.toolExists("djxl"), "needs the shared corpus and djxl"))
struct JXLCorpusTests {
    /// libjxl 0.7 refuses a few JPEGs (a reconstruction field too large to code, a file cut short in its
    /// scan): `convert --lossless` then stores the decoded pixels losslessly (not run here: minutes at 24 MP).
    /// Files of a few KB grow by the container and reconstruction boxes; photos shrink.
    @Test func everyCorpusJPEGRoundTripsByteExact() throws {
        let corpus = try #require(TestSupport.corpus).appendingPathComponent("jpeg")
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var recompressed = 0, refused = 0, photoBytes = 0, photoJXLBytes = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted() where [".jpg", ".jpeg"].contains(where: name.lowercased().hasSuffix) {
            let source = corpus.appendingPathComponent(name).path
            let jpeg = try TestSupport.bytes(source)
            // The recompression itself, whatever the eligibility of the file for `convert --lossless`.
            guard let jxl = try? JXLEncoder.recompress(jpeg, effort: JXLDefaults.effort, threads: 2) else {
                refused += 1
                continue
            }
            let out = dir.appendingPathComponent(name + ".jxl"), back = dir.appendingPathComponent(name + ".back.jpg")
            try Data(jxl).write(to: out)
            let run = try TestSupport.run("djxl", [out.path, back.path])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(try TestSupport.bytes(back.path) == jpeg, "\(name): not byte-exact")
            if jpeg.count >= 20_000 {
                #expect(jxl.count < jpeg.count, "\(name): \(jxl.count) >= \(jpeg.count)")
                photoBytes += jpeg.count
                photoJXLBytes += jxl.count
            }
            recompressed += 1
        }
        #expect(recompressed > 0 && refused <= 2, "\(recompressed) recompressed, \(refused) refused")
        // About a fifth smaller over the photos.
        #expect(Double(photoJXLBytes) < 0.9 * Double(photoBytes), "\(photoJXLBytes) of \(photoBytes) bytes")
    }

    @Test func corpusHEICsToJXL() throws {
        let corpus = try #require(TestSupport.corpus)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for photo in ["heic/libvips__heic-orientation-6.heic", "heic/pillow_heif__pug.heic"] {
            let source = corpus.appendingPathComponent(photo).path
            try #require(FileManager.default.fileExists(atPath: source), "\(photo) is not in the corpus")
            let output = dir.appendingPathComponent(UUID().uuidString + ".jxl").path
            let run = try TestSupport.imgprep(["convert", source, "--to", "jxl", "--max-dimension", "1024", "-o", output])
            #expect(run.status == 0, "\(photo): \(run.stderr)")
            let jpegRun = try TestSupport.imgprep(["convert", source, "--to", "png", "--max-dimension", "1024", "-o", output + ".png"])
            #expect(jpegRun.status == 0)
            let reference = try TestSupport.decode(output + ".png")
            #expect(try JXLTests.jxlinfoSize(output) == "\(reference.width)x\(reference.height)", "\(photo)")
            let decoded = try JXLTests.djxl(output, in: dir)
            #expect(TestSupport.psnr(decoded, reference) > 30, "\(photo)")
        }
    }

    /// `source` converted to JPEG XL and to PNG (the reference) with the same options.
    static func jxlAndPNG(_ source: String, in dir: URL, _ options: [String] = []) throws -> (jxl: String, png: String) {
        let jxl = dir.appendingPathComponent("out.jxl").path, png = dir.appendingPathComponent("out.png").path
        for (format, path) in [("jxl", jxl), ("png", png)] {
            let run = try TestSupport.imgprep(["convert", source, "--to", format, "-o", path] + options)
            try #require(run.status == 0, "\(source): \(run.stderr)")
        }
        return (jxl, png)
    }

    /// iPhone photos in Display P3: a lossy JPEG XL states D65 white and P3 primaries (jxlinfo), not the
    /// values libjxl 0.7 derives from Apple's profile (white near 0.278, 0.296; cjxl writes those too),
    /// and its colours, decoded by djxl and taken to sRGB by libvips, match imgprep's PNG taken to sRGB.
    /// Lossless keeps the profile itself.
    @Test(arguments: ["heic/immich__IMG_2682.heic", "heic/nuke__img_751.heic", "heic/oiio__IMG_7702_small.heic"])
    func displayP3StaysP3(_ photo: String) throws {
        let source = try #require(TestSupport.corpus).appendingPathComponent(photo).path
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (output, png) = try Self.jxlAndPNG(source, in: dir, ["--max-dimension", "512"])
        let info = try TestSupport.run("jxlinfo", [output]).stdout
        #expect(info.contains("Color space: RGB, D65, P3 primaries, sRGB transfer function"), "\(photo): \(info)")
        let decoded = dir.appendingPathComponent("djxl.png").path
        #expect(try TestSupport.run("djxl", [output, decoded]).status == 0)
        func inSRGB(_ path: String) throws -> PixelBuffer {
            let converted = path + ".srgb.png"
            let run = try TestSupport.run("vips", ["icc_transform", path, converted, "srgb"])
            try #require(run.status == 0, "vips: \(run.stderr)")
            return try TestSupport.decode(converted)
        }
        let psnr = TestSupport.psnr(try inSRGB(decoded), try inSRGB(png))
        #expect(psnr > 33, "\(photo): \(psnr) dB against the PNG, both in sRGB")
        let lossless = dir.appendingPathComponent("lossless.jxl").path
        let run = try TestSupport.imgprep(["convert", source, "--max-dimension", "128", "--lossless", "--to", "jxl", "-o", lossless])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(try TestSupport.run("jxlinfo", [lossless]).stdout.contains("-byte ICC profile"), "\(photo): lossless keeps the profile")
    }

    /// HEICs with an alpha channel keep it in JPEG XL: jxlinfo says RGBA and djxl's alpha is imgprep's PNG's.
    @Test(arguments: ["heic/libheif__with-alpha-512x512.heic", "heic/pillow_heif__RGBA_10__29x100.heif", "heic/pillow_heif__LA_8__29x100.heif"])
    func alphaStays(_ photo: String) throws {
        let source = try #require(TestSupport.corpus).appendingPathComponent(photo).path
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (output, png) = try Self.jxlAndPNG(source, in: dir)
        let info = try TestSupport.run("jxlinfo", [output]).stdout
        #expect(info.contains("8-bit RGBA"), "\(photo): \(info)")
        let decoded = try JXLTests.djxl(output, in: dir), reference = try TestSupport.decode(png)
        try #require(decoded.channels == 4 && reference.channels == 4 && decoded.pixels.count == reference.pixels.count, "\(photo)")
        let alphaError = stride(from: 3, to: decoded.pixels.count, by: 4).map { abs(Int(decoded.pixels[$0]) - Int(reference.pixels[$0])) }
        #expect(Double(alphaError.reduce(0, +)) / Double(alphaError.count) <= 2, "\(photo): alpha differs")
        #expect(reference.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element < 250 }, "\(photo): the reference has transparent pixels")
    }

    /// A gain-map photo written as JPEG XL warns that the map is dropped.
    @Test func gainMapInputWarns() throws {
        let corpus = try #require(TestSupport.corpus)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (photo, origin) in [("jpeg/libvips__ultra-hdr.jpg", "Ultra HDR"), ("heic/libvips__apple-heic-gainmap.heic", "Apple HEIC auxiliary image")] {
            let source = corpus.appendingPathComponent(photo).path
            try #require(FileManager.default.fileExists(atPath: source), "\(photo) is not in the corpus")
            for lossless in [false, true] {
                let run = try TestSupport.imgprep(["convert", source, "--to", "jxl", "--max-dimension", "256", "-o", dir.path, "--json"]
                                                  + (lossless ? ["--lossless"] : []))
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdout.contains("dropped the HDR gain map (\(origin)"), "\(photo): \(run.stdout)")
            }
        }
    }
}
