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
            let first = Array(image.pixels.prefix(image.channels))
            let oneColour = stride(from: 0, to: image.pixels.count, by: image.channels).allSatisfy { start in
                image.pixels[start..<start + image.channels].elementsEqual(first)
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
        #expect(lossless["format"] as? String == "webp", "\(lossless)")
        #expect(lossless["score"] as? Double == 100, "\(lossless)")
        #expect(lossless["meets"] as? Bool == true, "\(lossless)")
        let output = try #require(line["output"] as? String)
        let chosenBytes = try #require(line["bytes"] as? Int)
        let meeting: [Int] = candidates.filter { $0["meets"] as? Bool == true }.compactMap { $0["bytes"] as? Int }
        #expect(meeting.min() == chosenBytes, "\(line)")
        if line["format"] as? String == "webp", chosenBytes == lossless["bytes"] as? Int {
            let a: [UInt8] = try PNGLosslessTests.referencePixels(source)
            let b: [UInt8] = try PNGLosslessTests.referencePixels(output)
            try #require(a.count == b.count)
            #expect(Self.differingVisiblePixels(a, b) == 0, "\(name)")
        } else {
            let score = try SSIMULACRA2.score(original: PNGPaletteTests.pixels(source), originalProfile: nil,
                                              distorted: PNGPaletteTests.pixels(output), distortedProfile: nil)
            #expect(score >= 80, "\(name) scored \(score): \(line)")
        }
    }

    /// RGBA pixels that differ where they show: libwebp may rewrite the colour under a fully transparent one.
    static func differingVisiblePixels(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var differing = 0
        for i in stride(from: 0, to: min(a.count, b.count), by: 4) {
            let alphaDiffers = a[i + 3] != b[i + 3]
            let colourDiffers = a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2]
            if alphaDiffers || (a[i + 3] != 0 && colourDiffers) { differing += 1 }
        }
        return differing
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

    /// `compress` without `--to` on a graphic PNG: the lossless PNG when it fits (pixels as ImageMagick
    /// reads them, no larger than the input), a full-size palette PNG when only that fits, and a JPEG,
    /// with a warning saying why, only when neither fits.
    @Test(.enabled(if: PNGLosslessTests.haveImageMagick, "ImageMagick convert is not installed: no independent reader"))
    func compressKeepsAGraphicAFullSizePNG() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = PNGPaletteTests.fixture("screenshot.png")
        let inputBytes = try TestSupport.bytes(source).count
        func compressed(_ budget: String, _ folder: String) throws -> (line: [String: Any], output: String, bytes: [UInt8]) {
            let line = try Self.run(["compress", "--max-bytes", budget, source, "-o", dir.appendingPathComponent(folder).path])
            let output = try #require(line["output"] as? String, "\(line)")
            return (line, output, try TestSupport.bytes(output))
        }
        let lossless = try compressed("20KB", "lossless")
        #expect(lossless.output.hasSuffix("/screenshot.png"), "\(lossless.line)")
        #expect(lossless.bytes.count <= inputBytes)
        #expect(try PNGLosslessTests.referencePixels(lossless.output) == PNGLosslessTests.referencePixels(source))

        let palette = try compressed("3KB", "palette")
        #expect(palette.output.hasSuffix(".png") && palette.line["width"] as? Int == 320, "\(palette.line)")
        #expect(PNGLosslessTests.layout(palette.bytes).colorType == 3 && palette.bytes.count <= 3000, "\(palette.line)")
        #expect(try PNGPaletteTests.score(source, palette.output) >= 85)

        let neither = try compressed("1500B", "neither")
        #expect(neither.output.hasSuffix(".jpg") && neither.bytes.count <= 1500, "\(neither.line)")
        let warnings = neither.line["warnings"] as? [String] ?? []
        #expect(warnings.contains("a graphic, but no PNG of it fits 1500 B at full size: written as JPEG"), "\(warnings)")
    }

    /// `compress --in-place` keeps a PNG a PNG under its own name: a graphic lossless when that fits (the
    /// same pixels as ImageMagick reads them, no larger), else a full-size palette; a photo in a PNG a
    /// palette within the budget. Permissions are kept and nothing else is left in the folder.
    @Test(.enabled(if: PNGLosslessTests.haveImageMagick, "ImageMagick convert is not installed: no independent reader"))
    func compressInPlaceKeepsAPNGAPNG() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = PNGPaletteTests.fixture("screenshot.png")
        let original = try TestSupport.bytes(source)
        func inPlace(_ name: String, from bytes: [UInt8], budget: String) throws -> (line: [String: Any], path: String) {
            let path = dir.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o640)
            return (try Self.run(["compress", "--max-bytes", budget, "--in-place", path]), path)
        }
        let lossless = try inPlace("lossless.png", from: original, budget: "20KB")
        #expect(lossless.line["output"] as? String == lossless.path, "\(lossless.line)")
        #expect(try TestSupport.bytes(lossless.path).count <= original.count)
        #expect(try PNGLosslessTests.referencePixels(lossless.path) == PNGLosslessTests.referencePixels(source))
        #expect(try FileManager.default.attributesOfItem(atPath: lossless.path)[.posixPermissions] as? Int == 0o640)

        let palette = try inPlace("palette.png", from: original, budget: "3KB")
        let paletteBytes = try TestSupport.bytes(palette.path)
        #expect(palette.line["width"] as? Int == 320 && palette.line["format"] as? String == "png", "\(palette.line)")
        #expect(PNGLosslessTests.layout(paletteBytes).colorType == 3 && paletteBytes.count <= 3000, "\(palette.line)")

        // A photo (the demo's, 400 px wide) as a lossless PNG twice the budget.
        let photoPNG = dir.appendingPathComponent("photo-source.png").path
        try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("demo/phone-photo.heic").path,
                                 "--max-dimension", "400", "--to", "png", "-o", photoPNG])
        let photoBytes = try TestSupport.bytes(photoPNG)
        try FileManager.default.removeItem(atPath: photoPNG)
        let budget = photoBytes.count / 2
        let photo = try inPlace("photo.png", from: photoBytes, budget: "\(budget)")
        let photoOutput = try TestSupport.bytes(photo.path)
        #expect(photo.line["status"] as? String == "ok" && photo.line["width"] as? Int == 400, "\(photo.line)")
        #expect(photoOutput.count > 25 && PNGLosslessTests.layout(photoOutput).colorType == 3, "\(photo.line)")
        #expect(photoOutput.count <= budget, "\(photo.line)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["lossless.png", "palette.png", "photo.png"])
    }

    /// Without -o DIR a graphic's PNG would take its input's own name: it goes the photo's way (a JPEG
    /// beside it), and the input is left as it was.
    @Test func compressBesideTheInputStillWritesAJPEG() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("shot.png").path
        let original = try TestSupport.bytes(PNGPaletteTests.fixture("screenshot.png"))
        try Data(original).write(to: URL(fileURLWithPath: input))
        let line = try Self.run(["compress", "--max-bytes", "3KB", input])
        #expect(line["output"] as? String == dir.appendingPathComponent("shot.jpg").path, "\(line)")
        #expect(try TestSupport.bytes(input) == original)
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
