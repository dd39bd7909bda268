import Foundation
import Testing
@testable import ImagePrep

/// `--to auto`: per picture, the smallest allowed format that meets the target (or budget), among those
/// that keep what the picture has; the output's name follows the format chosen.
@Suite struct ToAutoTests {
    static func write(_ bytes: [UInt8], _ name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A 96x64 gradient whose left half is half transparent.
    static func rgbaPNG() throws -> [UInt8] {
        var pixels = [UInt8]()
        for y in 0..<64 {
            for x in 0..<96 { pixels += [UInt8(x * 2), UInt8(y * 3), 128, x < 48 ? 128 : 255] }
        }
        return try PNGEncoder().encode(.rgb(PixelBuffer(width: 96, height: 64, channels: 4, pixels: pixels)), quality: 0,
                                       metadata: ImageMetadata())
    }

    static func run(_ arguments: [String]) throws -> (run: TestSupport.Run, lines: [[String: Any]]) {
        let run = try TestSupport.imgprep(arguments + ["--json"])
        return (run, try BatchTests.jsonLines(run.stdout))
    }

    @Test func aPictureWithAlphaGetsAFormatThatKeepsIt() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(Self.rgbaPNG(), "alpha.png", in: dir)
        let (run, lines) = try Self.run(["convert", input, "--to", "auto", "--quality", "auto", "--auto-formats", "jpeg,webp,avif",
                                         "-o", dir.appendingPathComponent("out").path])
        #expect(run.status == 0, "\(run.stderr)")
        let format = try #require((lines.first?["format"] as? String).flatMap { OutputFormat(rawValue: $0) })
        #expect(format.writer.traits.keepsAlpha, "\(format)")
        let candidates = lines.first?["candidates"] as? [[String: Any]] ?? []
        #expect(!candidates.contains { ($0["format"] as? String).flatMap { OutputFormat(rawValue: $0) }?.writer.traits.keepsAlpha == false })
        let output = try #require(lines.first?["output"] as? String)
        #expect(output.hasSuffix("." + format.fileExtension))
        #expect(try QualityAutoTests.decode(TestSupport.bytes(output)).rgb().hasAlpha)
    }

    @Test func anAnimationGetsAFormatThatKeepsIt() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = TestSupport.fixtures.appendingPathComponent("gif/wave.gif").path
        let (run, lines) = try Self.run(["convert", input, "--to", "auto", "--quality", "auto", "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let format = try #require((lines.first?["format"] as? String).flatMap { OutputFormat(rawValue: $0) })
        #expect(format.writer.traits.keepsAnimation, "\(format)")
        let output = try #require(lines.first?["output"] as? String)
        guard case .animation = try QualityAutoTests.decode(TestSupport.bytes(output)) else {
            Issue.record("\(output) is not animated")
            return
        }
    }

    /// A photo: every allowed format is tried; the file written is the smallest that meets the target,
    /// with the bytes of each candidate in the JSON.
    @Test(arguments: [["--quality", "auto"], ["--max-bytes", "30KB"]])
    func aPhotoGetsTheSmallestFormatThatMeetsTheTarget(_ target: [String]) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(DeterminismTests.photoLikePNG(width: 320, height: 240), "photo.png", in: dir)
        let (run, lines) = try Self.run(["convert", input, "--to", "auto", "-o", dir.appendingPathComponent("out").path] + target)
        #expect(run.status == 0, "\(run.stderr)")
        let file = try #require(lines.first)
        let candidates = try #require(file["candidates"] as? [[String: Any]])
        #expect(candidates.compactMap { $0["format"] as? String } == ["avif", "webp", "jpeg"])   // the default --auto-formats
        let output = try #require(file["output"] as? String)
        let size = try TestSupport.bytes(output).count
        #expect(file["bytes"] as? Int == size)
        let meeting = candidates.filter { $0["meets"] as? Bool == true }
        #expect(!meeting.isEmpty)
        #expect(meeting.compactMap { $0["bytes"] as? Int }.min() == size, "\(candidates)")
        let chosen = try #require(candidates.first { $0["format"] as? String == file["format"] as? String })
        #expect(chosen["bytes"] as? Int == size)
        #expect(output.hasSuffix("." + (OutputFormat(rawValue: file["format"] as? String ?? "")?.fileExtension ?? "?")))
    }

    /// A format whose crop mosaic predicts far more bytes than a format already searched is not searched
    /// (the JSON marks its bytes as predicted); each such format's own search gives a larger file than the
    /// one written, so leaving it out changed nothing.
    @Test(.enabled(if: TestSupport.corpus != nil, "needs ../shared/corpus"))
    func aFormatThatCannotWinIsNotSearched() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try #require(TestSupport.corpus).appendingPathComponent("heic/immich__IMG_2682.heic").path
        let common = [photo, "--quality", "auto", "--max-dimension", "1024"]
        let (run, lines) = try Self.run(["convert", "--to", "auto", "-o", dir.appendingPathComponent("auto").path] + common)
        #expect(run.status == 0, "\(run.stderr)")
        let file = try #require(lines.first)
        let written = try #require(file["bytes"] as? Int)
        let candidates = try #require(file["candidates"] as? [[String: Any]])
        #expect(candidates.compactMap { $0["format"] as? String } == ["avif", "webp", "jpeg"])
        let predicted = candidates.filter { $0["predicted"] as? Bool == true }.compactMap { $0["format"] as? String }
        #expect(!predicted.isEmpty, "\(candidates)")
        for format in predicted {
            let (alone, aloneLines) = try Self.run(["convert", "--to", format, "-o", dir.appendingPathComponent(format).path] + common)
            #expect(alone.status == 0, "\(alone.stderr)")
            let bytes = try #require(aloneLines.first?["bytes"] as? Int)
            #expect(bytes > written, "\(format) alone: \(bytes) bytes, written: \(written)")
        }
        // The format written is the one its own search gives, byte for byte: the shared decode changed nothing.
        let format = try #require(file["format"] as? String)
        let (alone, aloneLines) = try Self.run(["convert", "--to", format, "-o", dir.appendingPathComponent("alone").path] + common)
        #expect(alone.status == 0)
        let output = try #require(file["output"] as? String), aloneOutput = try #require(aloneLines.first?["output"] as? String)
        #expect(try TestSupport.bytes(output) == TestSupport.bytes(aloneOutput))
    }

    /// An Ultra HDR photo keeps its gain map: only a format that carries one is a candidate, unless --hdr drop.
    @Test(.enabled(if: TestSupport.corpus != nil, "needs ../shared/corpus"))
    func aPhotoWithAGainMapGetsAFormatThatCarriesIt() throws {
        let corpus = try #require(TestSupport.corpus)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = corpus.appendingPathComponent("jpeg/libvips__ultra-hdr.jpg").path
        let options = ["convert", input, "--to", "auto", "--quality", "auto", "--max-dimension", "384"]
        let (run, lines) = try Self.run(options + ["-o", dir.appendingPathComponent("keep").path])
        #expect(run.status == 0, "\(run.stderr)")
        let candidates = (lines.first?["candidates"] as? [[String: Any]] ?? []).compactMap { $0["format"] as? String }
        #expect(!candidates.isEmpty && candidates.allSatisfy { OutputFormat(rawValue: $0)?.writer.traits.carriesGainMap == true }, "\(candidates)")
        #expect(lines.first?["gain_map"] != nil)
        let dropped = try Self.run(options + ["--hdr", "drop", "-o", dir.appendingPathComponent("drop").path])
        #expect((dropped.lines.first?["candidates"] as? [Any])?.count == 3)
    }

    @Test func usageErrors() throws {
        for bad in [["-o", "x.jpg", "--to", "auto", "--quality", "auto"],   // the name would say the format
                    ["--to", "auto"],                                       // nothing to meet
                    ["--auto-formats", "webp,avif", "--quality", "auto"],  // without --to auto
                    ["--to", "auto", "--quality", "auto", "--auto-formats", "webp,png"]] {
            let run = try TestSupport.imgprep(["convert", "in.png"] + bad)
            #expect(run.status == 2, "\(bad): \(run.stderr)")
        }
    }

    /// Outputs are named only once the format is chosen, so every name an output may get is claimed:
    /// a.jpg and a.png cannot both write a.avif; an existing a.webp counts for --skip-existing; a dry run
    /// lists every name.
    @Test func everyNameAnOutputMayGetIsClaimedAndChecked() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try DeterminismTests.photoLikePNG(width: 64, height: 48)
        let first = try Self.write(png, "a.png", in: dir)
        var settings = ConversionSettings()
        settings.format = .jpeg
        let second = try Self.write(try ImagePipeline.prepare(png, settings: settings).bytes, "a.jpg", in: dir)
        let out = dir.appendingPathComponent("out").path
        let (run, lines) = try Self.run(["convert", first, second, "--to", "auto", "--quality", "auto", "-o", out])
        #expect(run.status == 1)
        #expect(lines.filter { $0["status"] as? String == "ok" }.count == 1)
        let refused = try #require(lines.first { $0["status"] as? String == "failed" })
        #expect((refused["error"] as? String)?.contains("is written from") == true, "\(refused)")

        let written = try #require(lines.first { $0["status"] as? String == "ok" }?["output"] as? String)
        let again = try Self.run(["convert", first, "--to", "auto", "--quality", "auto", "-o", out, "--skip-existing"])
        #expect(again.lines.first?["status"] as? String == "skipped")
        #expect((again.lines.first?["reason"] as? String)?.contains(written) == true)

        let dry = try TestSupport.imgprep(["convert", first, "--to", "auto", "--quality", "auto", "-o", out, "--dry-run"])
        #expect(dry.stdout.split(separator: "\n").map(String.init)
                == ["avif", "webp", "jpg"].map { out + "/a." + $0 })
    }

    /// An input whose own name is one the output may get needs -o DIR.
    @Test func anOutputThatMayReplaceItsInputIsRefused() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var settings = ConversionSettings()
        settings.format = .webp
        let input = try Self.write(try ImagePipeline.prepare(DeterminismTests.photoLikePNG(width: 64, height: 48), settings: settings).bytes,
                                   "b.webp", in: dir)
        let (run, lines) = try Self.run(["convert", input, "--to", "auto", "--quality", "auto"])
        #expect(run.status == 1)
        #expect((lines.first?["error"] as? String)?.contains("would replace its own input") == true)
    }
}
