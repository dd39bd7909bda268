import Foundation
import Testing
@testable import ImagePrep

/// A set keeps what `convert` keeps: each JPEG variant carries the photo's HDR gain map (cut and scaled
/// with its window), read back by libultrahdr against the source's own map; an animation stays animated
/// in the WebP variants, read back by Pillow against gif2webp's; the manifest says which is which.
@Suite(.enabled(if: TestSupport.corpus != nil && IndependentUltraHDRReader.available,
                "no shared corpus or no .venv-test (make testenv): set gain-map tests skipped"))
struct WebSetGainMapTests {
    static func lines(_ run: TestSupport.Run) throws -> [[String: Any]] {
        try WebSetTests.lines(run)
    }

    @Test func everyJPEGWidthCarriesTheMapScaledWithIt() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifest = dir.appendingPathComponent("images.json")
        let run = try TestSupport.imgprep(["convert", UltraHDRTests.heic, "--to", "webp,jpeg", "--widths", "480,1200",
                                           "-o", dir.appendingPathComponent("img").path, "--manifest", manifest.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.lines(run)
        #expect(lines.count == 4, "\(run.stdout)")
        let warnings = (lines.first?["warnings"] as? [String]) ?? []
        #expect(warnings.contains { $0.contains("in the JPEG variants only") && $0.contains("WebP") }, "\(warnings)")
        let apple = try UltraHDRTests.appleMap(in: dir)
        for line in lines {
            let path = try #require(line["path"] as? String)
            let map = line["gain_map"] as? [String: Any]
            guard line["format"] as? String == "jpeg" else {
                #expect(map == nil, "\(line)")
                continue
            }
            // Apple's map is half the picture's sides and is written at a quarter of the output's.
            let width = try #require(line["width"] as? Int), height = try #require(line["height"] as? Int)
            #expect(map?["width"] as? Int == width / 4 && map?["height"] as? Int == height / 4, "\(line)")
            try UltraHDRTests.expectUltraHDRStructure(path)
            try UltraHDRTests.expectMatches(path, map: apple.pgm, quarterTurns: 0, apple: apple.headroom)
        }
        let entry = try #require(try Manifest.decode(TestSupport.bytes(manifest.path)).images[ManifestSource(UltraHDRTests.heic)])
        #expect(entry.variants.map(\.hdr) == [false, false, true, true], "\(entry.variants)")
    }

    /// `--fit cover` at a focal point: the map is cut to the same window as the picture.
    @Test func aCroppedBoxCarriesTheMapOfItsWindow() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["convert", UltraHDRTests.ultraHDR, "--to", "jpeg", "--box", "600x600", "--fit", "cover",
                                           "--crop", "100%,50%", "-o", dir.appendingPathComponent("img").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try Self.lines(run).first)
        let crop = try #require(line["crop"] as? [String: Int], "\(line)")
        // 3840x2160 into a square, at the right edge.
        #expect(crop == ["x": 1680, "y": 0, "width": 2160, "height": 2160], "\(crop)")
        #expect(line["width"] as? Int == 600 && line["gain_map"] is [String: Any], "\(line)")
        let path = try #require(line["path"] as? String)
        try UltraHDRTests.expectUltraHDRStructure(path)

        // The source's 960x540 map (a quarter of the picture's sides), cut to the window's quarter.
        let source = try UltraHDRTests.ultraHDRMap(of: UltraHDRTests.ultraHDR, in: dir)
        let pgm = try TestSupport.bytes(source.pgm)
        let pixels = Array(pgm.suffix(960 * 540))
        var cut: [UInt8] = []
        for row in 0..<540 { cut += pixels[(row * 960 + 420)..<(row * 960 + 960)] }
        let window = dir.appendingPathComponent("window.pgm").path
        try Data(Array("P5\n540 540\n255\n".utf8) + cut).write(to: URL(fileURLWithPath: window))
        try UltraHDRTests.expectMatches(path, map: window, quarterTurns: 0, ultraHDR: source.values)
    }

    /// `--fit contain` pads, and padding has no HDR values: SDR only, said once, and no claim left behind.
    @Test func aPaddedBoxIsSDRAndClaimsNothing() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["convert", UltraHDRTests.ultraHDR, "--to", "jpeg", "--box", "600x600", "--fit", "contain",
                                           "-o", dir.appendingPathComponent("img").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try Self.lines(run).first)
        #expect(line["gain_map"] == nil && (line["height"] as? Int) == 600, "\(line)")
        #expect(((line["warnings"] as? [String]) ?? []).contains { $0.contains("padded") }, "\(line)")
        let path = try #require(line["path"] as? String)
        let check = try TestSupport.run(IndependentUltraHDRReader.python,
                                        [TestSupport.packageRoot.appendingPathComponent("scripts/gainmap_claims.py").path, path])
        let result = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any], "\(check.stderr)")
        #expect(result["ultrahdr"] as? Bool == false && (result["claims"] as? [String]) == [], "\(result)")
    }
}

@Suite(.enabled(if: TestVenv.python != nil && TestSupport.toolExists("gif2webp") && TestSupport.toolExists("djpeg"),
                "needs the test venv with Pillow and numpy (`make testenv`), gif2webp and djpeg"))
struct WebSetAnimationTests {
    @Test func theWebPVariantsStayAnimatedAndTheOthersShowTheFirstFrame() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("gif/wave.gif").path   // 48x36, 6 frames
        let manifest = dir.appendingPathComponent("images.json")
        let run = try TestSupport.imgprep(["convert", source, "--to", "avif,webp,jpeg", "--widths", "24,48",
                                           "-o", dir.appendingPathComponent("img").path, "--manifest", manifest.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try WebSetTests.lines(run)
        #expect(lines.count == 6, "\(run.stdout)")
        let warnings = (lines.first?["warnings"] as? [String]) ?? []
        #expect(warnings.contains("an animation of 6 frames: the AVIF and JPEG variants show its first frame only"), "\(warnings)")
        let reference = try AnimationReferenceTests.gif2webp(source, [], in: dir)   // lossless: what a browser shows
        for line in lines {
            let path = try #require(line["path"] as? String)
            let read = try AnimationReferenceTests.Comparison(path, path).reference   // its own timeline, as Pillow reads it
            let width = try #require(line["width"] as? Int)
            #expect(read["size"] as? [Int] == [width, width * 3 / 4], "\(read)")
            guard line["format"] as? String == "webp" else {
                #expect(line["frames"] == nil && read["frames"] as? Int == 1, "\(line) \(read)")
                continue
            }
            let source = try AnimationReferenceTests.Comparison(reference, reference).reference
            #expect(line["frames"] as? Int == 6 && read["frames"] as? Int == 6, "\(line) \(read)")
            #expect(read["duration"] as? Int == source["duration"] as? Int && read["loop"] as? Int == source["loop"] as? Int, "\(read) \(source)")
            if width == 48 {
                let comparison = try AnimationReferenceTests.Comparison(reference, path)
                #expect(comparison.meanPSNR > 30, "\(path): \(comparison.meanPSNR) dB")
            }
        }
        // The <picture> offers only the animated WebP as a source: a browser would take a still AVIF first.
        let entry = try #require(try Manifest.decode(TestSupport.bytes(manifest.path)).images[ManifestSource(source)])
        #expect(entry.variants.map(\.animated) == [false, false, true, true, false, false], "\(entry.variants)")
        #expect(!entry.html.contains("image/avif") && entry.html.contains("<source type=\"image/webp\""), "\(entry.html)")
    }

    /// A box crops and pads every frame alike.
    @Test(arguments: ["cover", "contain"])
    func everyFrameFitsTheBox(_ fit: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("gif/wave.gif").path
        let run = try TestSupport.imgprep(["convert", source, "--to", "webp", "--box", "30x30", "--fit", fit,
                                           "-o", dir.appendingPathComponent("img").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try WebSetTests.lines(run).first)
        #expect(line["width"] as? Int == 30 && line["height"] as? Int == 30 && line["frames"] as? Int == 6, "\(line)")
        let path = try #require(line["path"] as? String)
        let comparison = try AnimationReferenceTests.Comparison(path, path)
        #expect(comparison.reference["frames"] as? Int == 6 && comparison.reference["size"] as? [Int] == [30, 30], "\(comparison.reference)")
    }
}
