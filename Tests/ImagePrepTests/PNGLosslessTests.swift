import Foundation
import Testing
@testable import ImagePrep

/// PNG out is lossless and as small as its layout allows: a palette for up to 256 colours (1/2/4/8 bits),
/// grey, opaque alpha dropped; and a PNG in never comes out larger than it went in. Pixels are compared
/// through ImageMagick's reader, not ours.
@Suite struct PNGLosslessTests {
    static let haveImageMagick = TestSupport.toolExists("convert")

    /// The RGBA pixels ImageMagick reads from a PNG file or bytes.
    static func referencePixels(_ path: String) throws -> [UInt8] {
        let read = try TestSupport.capture("convert", [path, "-depth", "8", "rgba:-"])
        try #require(read.status == 0, "ImageMagick could not read \(path)")
        return read.output
    }

    static func referencePixels(of png: [UInt8]) throws -> [UInt8] {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.png").path
        try Data(png).write(to: URL(fileURLWithPath: path))
        return try referencePixels(path)
    }

    /// IHDR's colour type and bit depth.
    static func layout(_ png: [UInt8]) -> (colorType: UInt8, bitDepth: UInt8) { (png[25], png[24]) }

    /// Each fixture (scripts/make-graphics-fixtures.sh, written as RGB or RGBA by ImageMagick) and the
    /// layout its rewrite must have.
    struct Graphic: CustomTestStringConvertible, Sendable {
        var name: String
        var colorType: UInt8
        var bitDepth: UInt8
        var testDescription: String { name }
    }

    static let graphics = [
        Graphic(name: "screenshot.png", colorType: 2, bitDepth: 8),       // 593 colours: stays RGB
        Graphic(name: "chart.png", colorType: 3, bitDepth: 8),            // 123 colours
        Graphic(name: "icon-alpha.png", colorType: 3, bitDepth: 8),       // 65 colours with alpha, in tRNS
        Graphic(name: "pixel-art.png", colorType: 3, bitDepth: 4),        // 5 colours, one transparent
        Graphic(name: "one-colour.png", colorType: 3, bitDepth: 1),
        Graphic(name: "2x2.png", colorType: 2, bitDepth: 8),              // 4 colours, but a PLTE chunk costs more than it saves
    ]

    @Test(.enabled(if: haveImageMagick, "ImageMagick convert is not installed: no independent PNG reader"), arguments: graphics)
    func graphicIsRewrittenLosslessAndNeverLarger(_ graphic: Graphic) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("graphics/\(graphic.name)").path
        let run = try TestSupport.imgprep(["convert", source, "--to", "png", "-o", dir.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try BatchTests.jsonLines(run.stdout).first)
        let output = dir.appendingPathComponent(graphic.name).path
        let (input, written) = (try TestSupport.bytes(source), try TestSupport.bytes(output))
        #expect(written.count <= input.count, "\(graphic.name): \(written.count) bytes from \(input.count)")
        #expect(try Self.referencePixels(output) == Self.referencePixels(source), "\(graphic.name): pixels changed")
        #expect(written.count < input.count)
        #expect(Self.layout(written) == (graphic.colorType, graphic.bitDepth), "\(graphic.name): \(Self.layout(written))")
        #expect(line["encodes"] as? Int == 1, "\(line)")
        // Its own output again: no rewrite is smaller, so the file comes back byte for byte.
        let again = dir.appendingPathComponent("again")
        let rerun = try TestSupport.imgprep(["convert", output, "--to", "png", "-o", again.path, "--json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let rerunLine = try #require(try BatchTests.jsonLines(rerun.stdout).first)
        #expect(try TestSupport.bytes(again.appendingPathComponent(graphic.name).path) == written, "\(graphic.name): a rewrite that is not smaller keeps the input")
        #expect(rerunLine["unchanged"] as? Bool == true && rerunLine["encodes"] as? Int == 0, "\(rerunLine)")
    }

    /// No larger than `optipng -o2` (its default effort) makes the same fixture.
    @Test(.enabled(if: TestSupport.toolExists("optipng"), "optipng is not installed (make testenv installs it)"), arguments: graphics)
    func graphicIsNoLargerThanOptipng(_ graphic: Graphic) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("graphics/\(graphic.name)").path
        let optimised = dir.appendingPathComponent("optipng.png").path
        let optipng = try TestSupport.run("optipng", ["-quiet", "-o2", "-out", optimised, source])
        try #require(optipng.status == 0, "\(optipng.stderr)")
        let run = try TestSupport.imgprep(["convert", source, "--to", "png", "-o", dir.appendingPathComponent("ours.png").path])
        #expect(run.status == 0, "\(run.stderr)")
        let (ours, theirs) = (try TestSupport.bytes(dir.appendingPathComponent("ours.png").path).count, try TestSupport.bytes(optimised).count)
        #expect(ours <= theirs, "\(graphic.name): \(ours) bytes, optipng -o2 \(theirs)")
    }

    /// Every layout PNGReduction offers decodes (by ImageMagick) to exactly the pixels given, and the
    /// layouts follow the pixels: no alpha channel when all are opaque, grey when R = G = B, a palette
    /// at the smallest depth that indexes the colours, none past 256. The encoder keeps the smallest it
    /// deflates hardest (see the last check).
    static let pictures: [(colours: Int, grey: Bool, alpha: Bool, layouts: [String])] = [
        (1, false, false, ["3/1", "2/8"]), (2, false, true, ["3/1", "6/8"]), (3, false, false, ["3/2", "2/8"]),
        (4, true, false, ["3/2", "0/8"]), (5, false, true, ["3/4", "6/8"]), (16, false, false, ["3/4", "2/8"]),
        (17, true, true, ["3/8", "4/8"]), (256, false, false, ["3/8", "2/8"]), (257, false, false, ["2/8"]),
        (1200, false, true, ["6/8"]), (1200, true, true, ["4/8"]), (1200, false, false, ["2/8"]),
    ]

    @Test(.enabled(if: haveImageMagick, "ImageMagick convert is not installed: no independent PNG reader"),
          arguments: pictures.indices)
    func everyLayoutHoldsThePixelsExactly(_ index: Int) throws {
        let picture = Self.pictures[index]
        let (width, height) = (40, 30)   // rows of 5, 10 and 20 bytes at 1, 2 and 4 bits; 1200 pixels
        var rgba: [UInt8] = []
        for i in 0..<width * height {
            let colour = (i * 7919) % picture.colours   // a scatter, not runs: every entry is used
            let value = UInt8(colour % 256), high = UInt8(colour / 256 * 50)
            rgba += picture.grey ? [value, value, value] : [value, high, UInt8(255 - colour % 200)]
            rgba.append(picture.alpha ? (picture.grey ? high : value) : 255)
        }
        // Given as RGBA, also when opaque: the alpha channel must go.
        let image = PixelBuffer(width: width, height: height, channels: 4, pixels: rgba)
        let layouts = PNGReduction.candidates(for: image, allowsGrey: true)
        #expect(layouts.map { "\($0.colorType)/\($0.bitDepth)" } == picture.layouts, "\(picture)")
        var sizes: [Int] = []
        for layout in layouts {
            for filtersNone in layout.filterChoices {
                let stored = try PNGEncoder.encode(layout, filtersNone: filtersNone, width: width, height: height, metadata: ImageMetadata())
                let filtered = try PNGDeflate.filteredRows(of: stored, filteredSize: height * (1 + layout.rowBytes))
                let png = try PNGDeflate.replacingImageData(of: stored, with: PNGDeflate.deflated(filtered, level: PNGEncoder.defaultCompressionLevel))
                #expect(try Self.referencePixels(of: png) == rgba, "\(picture): layout \(layout.colorType)/\(layout.bitDepth), unfiltered \(filtersNone)")
                sizes.append(png.count)
            }
        }
        // The encoder deflates at its top level only the layouts within 3% of the best at a cheap one: its
        // file is the smallest of those, within a few percent of the smallest of all.
        let written = try PNGEncoder.encode(image, metadata: ImageMetadata()).count
        #expect(sizes.contains(written) && Double(written) <= Double(sizes.min() ?? 0) * 1.03, "\(picture): \(written) of \(sizes)")
    }

    /// Grey pixels with an RGB profile stay RGB (PNG forbids an RGB profile on grey data), the profile kept.
    @Test func greyPixelsWithAnRGBProfileStayColour() throws {
        let icc = try CodecTestSupport.realICCProfile()
        var rgb: [UInt8] = []
        for i in 0..<(300 * 2) { let v = UInt8(i % 256); rgb += [v, v, v] }
        let picture = PixelBuffer(width: 300, height: 2, channels: 3, pixels: rgb)
        let png = try PNGEncoder.encode(picture, metadata: ImageMetadata(icc: icc))
        #expect(Self.layout(png).colorType != 0 && Self.layout(png).colorType != 4)
        let (decoded, metadata) = try PNGDecoder.decode(png)
        #expect(decoded == picture && metadata.icc == icc)
    }

    /// Real photos as ImageMagick writes them (RGB, zlib's default): the output is never larger and has
    /// the same pixels; a photo has too many colours for a palette, so its PNG is written as before.
    @Test(.enabled(if: TestSupport.corpus != nil && haveImageMagick,
                   "no shared corpus (set IMGPREP_CORPUS) or no ImageMagick: corpus PNGs not rewritten"))
    func corpusPhotosAsPNGNeverGrow() throws {
        let corpus = try #require(TestSupport.corpus)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpegs = try FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent("jpeg").path)
            .filter { $0.lowercased().hasSuffix(".jpg") }.sorted().prefix(4)
        try #require(!jpegs.isEmpty, "the corpus has no JPEGs")
        for name in jpegs {
            let source = dir.appendingPathComponent("\(name).png").path
            let made = try TestSupport.run("convert", [corpus.appendingPathComponent("jpeg/\(name)").path, "-resize", "320x320>", "PNG24:" + source])
            try #require(made.status == 0, "\(made.stderr)")
            let out = dir.appendingPathComponent("out-\(name).png").path
            let run = try TestSupport.imgprep(["convert", source, "--to", "png", "-o", out])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try TestSupport.bytes(out).count <= TestSupport.bytes(source).count, "\(name)")
            #expect(try Self.referencePixels(out) == Self.referencePixels(source), "\(name): pixels changed")
        }
    }
}
