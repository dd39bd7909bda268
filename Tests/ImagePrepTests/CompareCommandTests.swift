import Foundation
import Testing
@testable import ImagePrep

/// `imgprep compare`, run as the binary: what it prints, its exit statuses and its messages.
@Suite struct CompareCommandTests {
    static let fixtures = SSIMULACRA2Tests.directory
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    @Test func printsTheScoreWithThreeDecimals() throws {
        let run = try TestSupport.imgprep(["compare", Self.fixture("photo.png"), Self.fixture("photo-jpeg-q75.png")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let expected = try SSIMULACRA2Tests.score("photo.png", "photo-jpeg-q75.png")
        #expect(run.stdout == String(format: "%.3f\n", expected))
        #expect(try TestSupport.imgprep(["compare", Self.fixture("photo.png"), Self.fixture("photo.png")]).stdout == "100.000\n")
    }

    @Test func jsonGivesScoreAndSize() throws {
        let run = try TestSupport.imgprep(["compare", "--json", Self.fixture("p3.png"), Self.fixture("p3-jpeg-q70.png")])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["score", "width", "height"])
        #expect(object["width"] as? Int == 128 && object["height"] as? Int == 96)
        let score = try #require(object["score"] as? Double)
        #expect(abs(score - (try SSIMULACRA2Tests.score("p3.png", "p3-jpeg-q70.png"))) < 0.0006)
    }

    @Test func comparesAcrossFormatsUpright() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A HEIC against the JPEG imgprep makes of it.
        let heic = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        #expect(try TestSupport.imgprep(["convert", heic, "--to", "jpeg", "-o", directory.path]).status == 0)
        let jpeg = directory.appendingPathComponent("gps-p3.jpg").path
        let run = try TestSupport.imgprep(["compare", heic, jpeg])
        #expect(run.status == 0, "\(run.stderr)")
        let score = try #require(Double(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(score > 60 && score < 100, "\(score)")
        // Stored 240x160 with EXIF Orientation 6: upright 160x240, as the (lossless) PNG imgprep writes of it.
        let turned = TestSupport.fixtures.appendingPathComponent("webp/orientation-6.webp").path
        #expect(try TestSupport.imgprep(["convert", turned, "--to", "png", "-o", directory.path]).status == 0)
        let upright = try TestSupport.imgprep(["compare", "--json", turned, directory.appendingPathComponent("orientation-6.png").path])
        #expect(upright.status == 0, "\(upright.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(upright.stdout.utf8)) as? [String: Any])
        #expect(object["width"] as? Int == 160 && object["height"] as? Int == 240)
        #expect(object["score"] as? Double == 100)
    }

    /// A --max-dimension output scores against its original as against the original that convert resized
    /// (written losslessly): compare turns the original upright and resizes it as convert does, and says so.
    static func expectResizedComparisonMatchesConvert(_ source: String, maxDimension: Int, to format: String) throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        for (arguments, folder) in [(["--to", "png"], "reference"), (["--to", format], "candidate")] {
            let run = try TestSupport.imgprep(["convert", source, "--max-dimension", "\(maxDimension)", "-o", directory.appendingPathComponent(folder).path] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let candidate = directory.appendingPathComponent("candidate/\(name).\(format == "jpeg" ? "jpg" : format)").path
        let reference = directory.appendingPathComponent("reference/\(name).png").path
        let resized = try TestSupport.imgprep(["compare", "--json", source, candidate])
        let direct = try TestSupport.imgprep(["compare", "--json", reference, candidate])
        #expect(resized.status == 0 && direct.status == 0, "\(resized.stderr)\(direct.stderr)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(resized.stdout.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(direct.stdout.utf8)) as? [String: Any])
        #expect(a["score"] as? Double == b["score"] as? Double && a["score"] != nil, "\(a) \(b)")
        #expect(a["width"] as? Int == b["width"] as? Int && a["height"] as? Int == b["height"] as? Int)
        #expect(max(a["width"] as? Int ?? 0, a["height"] as? Int ?? 0) == maxDimension, "\(a)")
        #expect(a["resized_from"] is [String: Any] && b["resized_from"] == nil, "\(a) \(b)")
        #expect(resized.stderr.contains("resized from") && resized.stderr.filter { $0 == "\n" }.count == 1, "\(resized.stderr)")
        #expect(direct.stderr.isEmpty, "\(direct.stderr)")
    }

    @Test func aSmallerCopyIsComparedWithTheOriginalResizedAsConvertDoes() throws {
        // 320x240 to 203x152 (a rounded short edge); stored 240x160 with Orientation 6 to 135x203 upright.
        try Self.expectResizedComparisonMatchesConvert(TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path, maxDimension: 203, to: "jpeg")
        try Self.expectResizedComparisonMatchesConvert(TestSupport.fixtures.appendingPathComponent("webp/orientation-6.webp").path, maxDimension: 203, to: "webp")
    }

    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS)"))
    func aSmallerCopyOfACorpusPhotoIsComparedWithTheOriginalResized() throws {
        let corpus = try #require(TestSupport.corpus)
        try Self.expectResizedComparisonMatchesConvert(corpus.appendingPathComponent("heic/libheif__example.heic").path, maxDimension: 500, to: "webp")
    }

    @Test func differentAspectRatiosExit2NamingBoth() throws {
        let alpha = TestSupport.fixtures.appendingPathComponent("heic/alpha.heic").path
        let run = try TestSupport.imgprep(["compare", Self.fixture("photo.png"), alpha])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("imgprep: "))
        #expect(run.stderr.filter { $0 == "\n" }.count == 1)
        #expect(run.stderr.contains("128x96") && run.stderr.contains("64x64"), "\(run.stderr)")
    }

    @Test func anUnreadableFileIsOneLineAndExit1() throws {
        let missing = try TestSupport.imgprep(["compare", Self.fixture("photo.png"), "/nonexistent/x.png"])
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.hasPrefix("imgprep: /nonexistent/x.png: "), "\(missing.stderr)")
        #expect(missing.stderr.filter { $0 == "\n" }.count == 1)
        let notAnImage = TestSupport.fixtures.appendingPathComponent("bad/not-heif.heic").path
        let bad = try TestSupport.imgprep(["compare", notAnImage, Self.fixture("photo.png")])
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("imgprep: \(notAnImage): "), "\(bad.stderr)")
        // Too small to score (the reference refuses under 8x8 too).
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tiny = directory.appendingPathComponent("tiny.png")
        let pixels = PixelBuffer(width: 4, height: 4, channels: 3, pixels: [UInt8](repeating: 90, count: 48))
        try Data(PNGEncoder.encode(pixels, metadata: ImageMetadata())).write(to: tiny)
        let small = try TestSupport.imgprep(["compare", tiny.path, tiny.path])
        #expect(small.status == 1)
        #expect(small.stderr.contains("8x8"), "\(small.stderr)")
    }

    @Test func pathsArePrintedEscaped() throws {
        let name = "/nonexistent/a\u{1B}]0;title\u{07}b.png"
        let run = try TestSupport.imgprep(["compare", name, Self.fixture("photo.png")])
        #expect(run.status == 1)
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\u{07}"))
        #expect(run.stderr.contains("a\\033]0;title\\ab.png"), "\(run.stderr)")
    }

    @Test func usageErrorsExit2() throws {
        for arguments in [["compare"], ["compare", Self.fixture("photo.png")],
                          ["compare", Self.fixture("photo.png"), Self.fixture("photo.png"), Self.fixture("photo.png")],
                          ["compare", "--quality", "5", Self.fixture("photo.png"), Self.fixture("photo.png")]] {
            let run = try TestSupport.imgprep(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains("compare"), "\(run.stderr)")
        }
    }
}
