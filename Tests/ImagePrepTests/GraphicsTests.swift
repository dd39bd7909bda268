import Foundation
import Testing
@testable import ImagePrep

/// Graphics told from photos (GraphicContent, docs/graphics.md), and what `--to auto` does with one: the
/// lossless mode of each allowed format is tried first, and a lossless output has the source's pixels as
/// ImageMagick reads them. Scores are SSIMULACRA2's port, held to the reference tool by SSIMULACRA2Tests.
struct GraphicsTests {
    static let fixtures = ["2x2.png", "chart.png", "icon-alpha.png", "one-colour.png", "pixel-art.png", "screenshot.png"]

    @Test(arguments: fixtures) func everyGraphicsFixtureIsAGraphic(name: String) throws {
        let content = GraphicContent(try TestSupport.decode(PNGPaletteTests.fixture(name)))
        #expect(content.isGraphic, "\(name): \(content)")
    }

    /// Every corpus JPEG that is a photo reads as one. The others are drawn: the colour bars of Nuke's
    /// orientation sample, and the one-colour pictures that only carry metadata samples.
    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS): corpus photos not classified"))
    func corpusPhotosAreNotGraphics() throws {
        let folder = try #require(TestSupport.corpus).appendingPathComponent("jpeg")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".jpeg") }.sorted()
        var photos = 0
        for name in names {
            guard let image = try? TestSupport.decode(folder.appendingPathComponent(name).path) else { continue }
            let oneColour = image.pixels.withUnsafeBufferPointer { p in
                stride(from: 0, to: p.count, by: image.channels).allSatisfy { (0..<image.channels).allSatisfy { c in p[$0 + c] == p[c] } }
            }
            let drawn = oneColour || name == "nuke__right-orientation.jpeg"
            if !drawn { photos += 1 }
            let content = GraphicContent(image)
            #expect(content.isGraphic == drawn, "\(name): \(content)")
        }
        #expect(photos >= 20, "only \(photos) corpus photos decoded")
    }

    static func run(_ arguments: [String]) throws -> [String: Any] {
        let run = try TestSupport.imgprep(arguments + ["--json"])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return try #require(try BatchTests.jsonLines(run.stdout).first)
    }

    /// `--to auto --quality auto`: lossless WebP is among the candidates, scored 100; the output is the
    /// smallest that meets the target. A lossless answer shows the source's pixels (even the 2x2, too small
    /// to score); a lossy one scores at or above the target.
    @Test(.enabled(if: PNGLosslessTests.haveImageMagick, "ImageMagick convert is not installed: no independent reader"),
          arguments: fixtures)
    func toAutoTriesLosslessFirst(name: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = PNGPaletteTests.fixture(name)
        let line = try Self.run(["convert", source, "--to", "auto", "--quality", "auto", "-o", dir.path])
        let candidates = line["candidates"] as? [[String: Any]] ?? []
        let lossless = try #require(candidates.first { $0["lossless"] as? Bool == true }, "\(line)")
        #expect(lossless["format"] as? String == "webp" && lossless["score"] as? Double == 100 && lossless["meets"] as? Bool == true, "\(lossless)")
        let output = try #require(line["output"] as? String)
        let chosenBytes = try #require(line["bytes"] as? Int)
        #expect(candidates.filter { $0["meets"] as? Bool == true }.allSatisfy { ($0["bytes"] as? Int ?? 0) >= chosenBytes }, "\(line)")
        if line["format"] as? String == "webp", chosenBytes == lossless["bytes"] as? Int {
            let (a, b) = (try PNGLosslessTests.referencePixels(source), try PNGLosslessTests.referencePixels(output))
            try #require(a.count == b.count)
            // Visible pixels: libwebp may rewrite the colour under a fully transparent one.
            let differing = stride(from: 0, to: a.count, by: 4).filter { i in
                a[i + 3] != b[i + 3] || (a[i + 3] != 0 && a[i..<i + 3] != b[i..<i + 3])
            }
            #expect(differing.isEmpty, "\(name): \(differing.count) pixels differ")
        } else {
            let score = try SSIMULACRA2.score(original: PNGPaletteTests.pixels(source), originalProfile: nil,
                                              distorted: PNGPaletteTests.pixels(output), distortedProfile: nil)
            #expect(score >= 80, "\(name) scored \(score): \(line)")
        }
    }

    /// With only a budget, a lossless file that fits is a candidate like the others, and the output fits.
    @Test func aBudgetCountsLosslessFilesThatFit() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let line = try Self.run(["convert", PNGPaletteTests.fixture("chart.png"), "--to", "auto", "--max-bytes", "2KB", "-o", dir.path])
        let candidates = try #require(line["candidates"] as? [[String: Any]], "\(line)")
        #expect(candidates.contains { $0["lossless"] as? Bool == true }, "\(line)")
        #expect((line["bytes"] as? Int ?? .max) <= 2000, "\(line)")
        #expect(try TestSupport.bytes(try #require(line["output"] as? String)).count <= 2000)
    }

    /// A photo gets no lossless candidate (its outputs are as they were before graphics were told apart).
    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS): no corpus photo to try"))
    func aPhotoGetsNoLosslessCandidate() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try #require(TestSupport.corpus).appendingPathComponent("jpeg/recurser__Landscape_2.jpg").path
        let line = try Self.run(["convert", photo, "--to", "auto", "--quality", "auto", "--max-dimension", "256", "-o", dir.path])
        let candidates = try #require(line["candidates"] as? [[String: Any]], "\(line)")
        #expect(!candidates.contains { $0["lossless"] as? Bool == true }, "\(line)")
    }
}
