import Foundation
import Testing
@testable import ImagePrep

/// GIF in: stills to every format, animations composited as browsers show them (offsets, every
/// disposal method, transparency, interlacing, local palettes), timing, loops and metadata. The
/// fixtures are written record by record by scripts/make-gif-fixtures.py, which says what each holds.
@Suite struct GIFInputTests {
    static let gif = TestSupport.fixtures.appendingPathComponent("gif").path

    static func decode(_ name: String, keepsAnimation: Bool = true) throws -> DecodedImage {
        try GIFDecoder().decode(TestSupport.bytes("\(gif)/\(name)"), options: DecodeOptions(maxPixels: 1 << 24, keepsAnimation: keepsAnimation))
    }

    static func pixel(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * image.width + x) * image.channels
        return Array(image.pixels[at..<at + image.channels])
    }

    @Test func gifIsSniffedByItsContentWhateverItsName() throws {
        let bytes = try TestSupport.bytes("\(Self.gif)/still.gif")
        #expect(try FormatSniffer.sniff(bytes).get() == .gif)
        #expect(try FormatSniffer.sniff(Array("GIF87a".utf8) + [1, 0, 1, 0, 0, 0, 0]).get() == .gif)
        #expect(HeaderProbe.header(of: bytes, format: .gif) == ImageHeader(width: 40, height: 30, hasAlpha: false, frames: 1))
        let disposal = try TestSupport.bytes("\(Self.gif)/disposal.gif")
        #expect(HeaderProbe.header(of: disposal, format: .gif) == ImageHeader(width: 48, height: 32, hasAlpha: true, frames: 5))
        // Animated WebP too: every frame's canvas counts for --max-pixels and the batch's memory estimates.
        let webp = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("webp/animated.webp").path)
        #expect(HeaderProbe.header(of: webp, format: .webp)?.frames == 2)
        #expect(try WebPDecoder().header(of: webp).pixelCount == 48 * 32 * 2)
    }

    @Test func stillGIFBecomesALosslessPNG() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        // Renamed: the content decides, not the name.
        let source = out.appendingPathComponent("still.png.bin")
        try FileManager.default.copyItem(atPath: "\(Self.gif)/still.gif", toPath: source.path)
        let run = try TestSupport.imgprep(["convert", source.path, "--to", "png", "-o", out.appendingPathComponent("png").path])
        #expect(run.status == 0, "\(run.stderr)")
        let png = try TestSupport.decode(out.appendingPathComponent("png/still.png.png").path)
        #expect((png.width, png.height, png.channels) == (40, 30, 3))
        let palette: [[UInt8]] = [[240, 240, 240], [30, 60, 200], [220, 20, 20], [0, 0, 0]]
        for y in 0..<30 {
            for x in 0..<40 {
                let index = (x / 5 + y / 5) % 2 + (x < 8 && y < 8 ? 2 : 0)
                #expect(Self.pixel(png, x, y) == palette[index], "(\(x),\(y))")
            }
        }
    }

    @Test(arguments: ["jpeg", "webp", "avif", "heic"])
    func stillGIFConvertsToEveryFormat(_ format: String) throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(Self.gif)/still.gif", "--to", format, "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
        let name = "still." + (format == "jpeg" ? "jpg" : format)
        let info = try TestSupport.imgprep(["info", "--json", out.appendingPathComponent(name).path])
        #expect(info.stdout.contains("\"width\":40") && info.stdout.contains("\"height\":30"), "\(info.stdout)")
    }

    @Test func interlacedRowsAndTheTransparentColourLandWhereTheyBelong() throws {
        let decoded = try Self.decode("still-interlaced.gif")
        let image = decoded.pixels
        #expect((image.width, image.height, image.channels) == (33, 21, 4))
        let palette: [[UInt8]] = [[0, 0, 0], [250, 200, 0], [0, 160, 80], [120, 0, 160]]
        for y in 0..<21 {
            for x in 0..<33 {
                let expected = (9..<12).contains(y) ? [0, 0, 0, 0] : palette[1 + (x + y) % 3] + [255]
                #expect(Self.pixel(image, x, y) == expected, "(\(x),\(y))")
            }
        }
    }

    @Test func framesAreCompositedAsBrowsersShowThem() throws {
        guard case .animation(let animation) = try Self.decode("disposal.gif").content else {
            Issue.record("disposal.gif is animated"); return
        }
        #expect(animation.frames.map(\.duration) == [200, 100, 100, 300, 100], "delays 0 and 10 ms play as 100 ms")
        #expect(animation.loopCount == 0)
        let blue: [UInt8] = [20, 40, 220, 255], red: [UInt8] = [230, 20, 20, 255], green: [UInt8] = [20, 200, 60, 255]
        let clear: [UInt8] = [0, 0, 0, 0], yellow: [UInt8] = [255, 230, 0, 255]
        let f = animation.frames.map(\.canvas)
        #expect(Self.pixel(f[0], 5, 5) == blue)
        #expect(Self.pixel(f[1], 5, 5) == red && Self.pixel(f[1], 25, 9) == blue, "the red square at its offset")
        // Frame 2 disposed to background: a transparent hole; frame 3's transparent centre shows the canvas.
        #expect(Self.pixel(f[2], 5, 5) == clear && Self.pixel(f[2], 25, 9) == green && Self.pixel(f[2], 31, 15) == blue)
        // Frame 3 disposed to previous: the green square is gone, the hole stays; yellow from a local palette.
        #expect(Self.pixel(f[3], 25, 9) == blue && Self.pixel(f[3], 5, 5) == clear && Self.pixel(f[3], 12, 22) == yellow)
        #expect(f[4].pixels == f[3].pixels)
    }

    @Test func loopCountsFollowGif2webp() throws {
        for (name, loops) in [("disposal.gif", 0), ("no-loop.gif", 1), ("loop-3.gif", 4)] {
            guard case .animation(let animation) = try Self.decode(name).content else { Issue.record("\(name) is animated"); continue }
            #expect(animation.loopCount == loops, "\(name)")
        }
        #expect(GIFDecoder.webpLoopCount(65535) == 65535)
    }

    @Test func commentsAndXMPAreRead() throws {
        let decoded = try Self.decode("disposal.gif")
        #expect(decoded.metadata.comments == [Array("imgprep fixture: disposal methods".utf8)])
        let xmp = String(decoding: try #require(decoded.metadata.xmp), as: UTF8.self)
        #expect(xmp.hasPrefix("<?xpacket begin") && xmp.hasSuffix("<?xpacket end=\"w\"?>") && xmp.contains("Disposal fixture"), "\(xmp)")
    }

    @Test func animationToAStillFormatKeepsTheFirstFrameAndSaysHowManyWereDropped() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "\(Self.gif)/disposal.gif", "--to", "png", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("an animated GIF (5 frames): converted the first frame; 4 frames dropped"), "\(run.stderr)")
        let png = try TestSupport.decode(out.appendingPathComponent("disposal.png").path)
        #expect((png.width, png.height, png.channels) == (48, 32, 3))
        #expect(Self.pixel(png, 5, 5) == [20, 40, 220])
    }

    @Test func infoShowsFramesDurationLoopsAndTheLogicalScreen() throws {
        let run = try TestSupport.imgprep(["info", "\(Self.gif)/disposal.gif", "\(Self.gif)/no-loop.gif", "\(Self.gif)/still.gif"])
        #expect(run.status == 0, "\(run.stderr)")
        for phrase in ["GIF (animated)", "5 frames, 0.80 s, plays forever, logical screen 48x32", "3 frames, 0.45 s, plays once",
                       "comment:      imgprep fixture: disposal methods", "xmp:          378 bytes"] {
            #expect(run.stdout.contains(phrase), "\(phrase) in \(run.stdout)")
        }
        let json = try TestSupport.imgprep(["info", "--json", "\(Self.gif)/loop-3.gif"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let animation = try #require(object["animation"] as? [String: Any])
        #expect(animation["frames"] as? Int == 2 && animation["duration_ms"] as? Int == 100 && animation["plays"] as? Int == 4)
        #expect(animation["screen_width"] as? Int == 24 && animation["screen_height"] as? Int == 16)
    }
}
