import Foundation
import Testing
@testable import ImagePrep

/// Web image sets through the CLI: every variant read back by decoders that are not ours, names,
/// duplicates refused before anything is read, budgets per width, boxes, the manifest's determinism,
/// and no partial set left behind.
@Suite(.enabled(if: ["dwebp", "avifdec", "djpeg", "identify", "convert"].allSatisfy(TestSupport.toolExists),
                "needs dwebp, avifdec, djpeg and ImageMagick"))
struct WebSetTests {
    /// A noisy photo-like picture (plasma, fixed seed) of `width`x`height` in `format` (an ImageMagick prefix).
    static func picture(_ directory: URL, _ name: String, width: Int = 400, height: Int = 300) throws -> String {
        let path = directory.appendingPathComponent(name).path
        let made = try TestSupport.run("convert", ["-size", "\(width)x\(height)", "-seed", "7", "plasma:", path])
        try #require(made.status == 0, "convert: \(made.stderr)")
        return path
    }

    /// The size a reference decoder reads (dwebp, avifdec or djpeg, then ImageMagick on its output).
    static func decodedSize(_ path: String, scratch: URL) throws -> (width: Int, height: Int) {
        let png = scratch.appendingPathComponent(UUID().uuidString + ".png").path
        let ppm = scratch.appendingPathComponent(UUID().uuidString + ".ppm").path
        let decoded: String
        let run: TestSupport.Run
        switch URL(fileURLWithPath: path).pathExtension {
        case "webp": (run, decoded) = (try TestSupport.run("dwebp", [path, "-o", png]), png)
        case "avif": (run, decoded) = (try TestSupport.run("avifdec", [path, png]), png)
        case "jpg": (run, decoded) = (try TestSupport.run("djpeg", ["-outfile", ppm, path]), ppm)
        default: (run, decoded) = (try TestSupport.run("identify", [path]), path)
        }
        try #require(run.status == 0, "\(path) does not decode: \(run.stderr)")
        let size = try TestSupport.run("identify", ["-format", "%w %h", decoded])
        let numbers = size.stdout.split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 2, "identify: \(size.stdout) \(size.stderr)")
        return (numbers[0], numbers[1])
    }

    /// The JSON lines of a run, less the summary.
    static func lines(_ run: TestSupport.Run) throws -> [[String: Any]] {
        try run.stdout.split(separator: "\n").compactMap { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.filter { $0["summary"] == nil }
    }

    @Test func everyWidthInEveryFormatDecodesAtItsSizeAndNeverEnlarges() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.picture(directory, "photo.png")
        let out = directory.appendingPathComponent("out").path
        let run = try TestSupport.imgprep(["convert", input, "--to", "avif,webp,jpeg", "--widths", "100,200,900", "-o", out, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let variants = try Self.lines(run)
        // 900 is over the source's 400: not made, the source's own width added.
        #expect(variants.map { $0["format"] as? String } == ["avif", "avif", "avif", "webp", "webp", "webp", "jpeg", "jpeg", "jpeg"])
        #expect(variants.map { $0["width"] as? Int } == [100, 200, 400, 100, 200, 400, 100, 200, 400])
        #expect(variants.map { $0["height"] as? Int } == [75, 150, 300, 75, 150, 300, 75, 150, 300])
        for variant in variants {
            let path = try #require(variant["path"] as? String)
            #expect(path == out + "/photo-\(variant["width"] as? Int ?? 0).\(URL(fileURLWithPath: path).pathExtension)")
            let size = try Self.decodedSize(path, scratch: directory)
            #expect(size.width == variant["width"] as? Int && size.height == variant["height"] as? Int, "\(path)")
            #expect(try TestSupport.bytes(path).count == variant["bytes"] as? Int)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(files.count == 9, "\(files)")
    }

    @Test func oneOrientationForEveryVariant() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = TestSupport.fixtures.appendingPathComponent("heic/orientation-6.heic").path
        let single = directory.appendingPathComponent("single.png").path
        #expect(try TestSupport.imgprep(["convert", input, "-o", single]).status == 0)
        let upright = try Self.decodedSize(single, scratch: directory)
        let run = try TestSupport.imgprep(["convert", input, "--to", "webp,jpeg", "--widths", "20,100000",
                                           "-o", directory.appendingPathComponent("set").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let variants = try Self.lines(run)
        #expect(variants.count == 4)
        for variant in variants {
            let size = try Self.decodedSize(try #require(variant["path"] as? String), scratch: directory)
            let width = try #require(variant["width"] as? Int)
            #expect(width == 20 || width == upright.width)
            // Every variant has the upright picture's aspect.
            #expect(abs(Double(size.height) / Double(size.width) - Double(upright.height) / Double(upright.width)) < 0.05)
        }
    }

    @Test func templatesNameByDirectoryAndHash() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tree = directory.appendingPathComponent("photos/trip")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        _ = try Self.picture(tree, "beach.png", width: 120, height: 80)
        let out = directory.appendingPathComponent("web").path
        let run = try TestSupport.imgprep(["convert", "-r", directory.appendingPathComponent("photos").path, "--to", "webp,jpeg",
                                           "--widths", "60", "--name", "{dir}/{name}.{width}x{height}.{hash}.{ext}", "-o", out, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let variants = try Self.lines(run)
        #expect(variants.count == 2)   // 60 in two formats: the source fills it, so its own width is not added
        for variant in variants {
            let path = try #require(variant["path"] as? String)
            let bytes = try TestSupport.bytes(path)
            let hash = SHA256.hash(bytes).prefix(5).map { String(format: "%02x", $0) }.joined()
            let width = try #require(variant["width"] as? Int), height = try #require(variant["height"] as? Int)
            let ext = variant["format"] as? String == "jpeg" ? "jpg" : "webp"
            #expect(path == "\(out)/trip/beach.\(width)x\(height).\(hash).\(ext)")
        }
        // Without {dir}, the tree is mirrored as for single outputs.
        let mirrored = try TestSupport.imgprep(["convert", "-r", directory.appendingPathComponent("photos").path, "--to", "webp",
                                                "--widths", "60", "-o", out + "2", "--json"])
        #expect(try Self.lines(mirrored).compactMap { $0["path"] as? String } == ["\(out)2/trip/beach-60.webp"])
    }

    @Test func namesTwoVariantsShareAreRefusedBeforeAnythingIsRead() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A FIFO with no writer: reading it would block the run, so a prompt exit proves it was not read.
        let fifo = directory.appendingPathComponent("photo.png").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let out = directory.appendingPathComponent("out").path
        for arguments in [["--to", "avif,webp", "--widths", "100,200", "--name", "{name}-{width}"],
                          ["--to", "webp", "--widths", "100,200", "--name", "{name}.{ext}"],
                          ["--to", "webp", "--widths", "100", "--name", "{name}-{size}.{ext}"]] {
            let run = try TestSupport.imgprep(["convert", fifo, "-o", out] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("--name"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        // Two arguments whose variants share names: a usage error too, before either is read.
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
            _ = try Self.picture(directory.appendingPathComponent(folder), "same.png", width: 80, height: 60)
        }
        let both = [directory.appendingPathComponent("a/same.png").path, directory.appendingPathComponent("b/same.png").path]
        let run = try TestSupport.imgprep(["convert"] + both + ["--to", "webp", "--widths", "40", "-o", out])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("would both write"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // The same file named twice is one input, not a clash.
        let twice = try TestSupport.imgprep(["convert", both[0], both[0], "--to", "webp", "--widths", "40", "-o", out])
        #expect(twice.status == 0, "\(twice.stderr)")
        // Found by -r, the later one is refused by the planner without being read.
        let found = try TestSupport.imgprep(["convert", "-r", directory.appendingPathComponent("a").path, directory.appendingPathComponent("b").path,
                                             "--to", "webp", "--widths", "40", "-o", out + "-r", "--json"])
        #expect(found.status == 1)
        let lines = try Self.lines(found)
        #expect(lines.filter { $0["status"] as? String == "ok" }.count == 1)
        let refused = try #require(lines.first { $0["status"] as? String == "failed" })
        #expect((refused["error"] as? String ?? "").contains("is written from"), "\(refused)")
    }

    @Test func budgetsPerWidthAreMet() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.picture(directory, "photo.png", width: 600, height: 400)
        let run = try TestSupport.imgprep(["convert", input, "--to", "webp,jpeg,avif", "--widths", "150,600",
                                           "--max-bytes", "150:3KB,600:20KB", "-o", directory.appendingPathComponent("out").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let variants = try Self.lines(run)
        #expect(variants.count == 6)
        for variant in variants {
            let limit = variant["width"] as? Int == 150 ? 3000 : 20_000
            let bytes = try TestSupport.bytes(try #require(variant["path"] as? String)).count
            #expect(bytes <= limit, "\(variant)")
        }
        // A width budget for a width not asked for is a usage error.
        let wrong = try TestSupport.imgprep(["convert", input, "--to", "webp", "--widths", "150", "--max-bytes", "300:3KB"])
        #expect(wrong.status == 2)
    }

    /// Needs BoxGeometry.plan (the web-set operations): fails while it is a stub.
    @Test func boxFitsGiveExactSizes() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.picture(directory, "photo.png", width: 400, height: 300)
        let expected: [String: (Int, Int)] = ["cover": (120, 80), "contain": (120, 80), "fill": (120, 80), "inside": (107, 80)]
        for (fit, size) in expected {
            let run = try TestSupport.imgprep(["convert", input, "--to", "jpeg,webp", "--box", "120x80", "--fit", fit,
                                               "-o", directory.appendingPathComponent(fit).path, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            for variant in try Self.lines(run) {
                let decoded = try Self.decodedSize(try #require(variant["path"] as? String), scratch: directory)
                #expect(decoded.width == size.0 && decoded.height == size.1, "\(fit): \(decoded)")
                #expect((variant["crop"] != nil) == (fit == "cover"))
            }
        }
    }

    /// The document's bytes come from Manifest.encoded (the manifest part): empty while it is a stub.
    @Test func manifestIsTheSameAtAnyJobsAndOrder() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = try ["a.png", "b.png", "c.png"].enumerated().map { index, name in
            try Self.picture(directory, name, width: 160 + 40 * index, height: 120)
        }
        var documents: [[UInt8]] = []
        for (jobs, order) in [("1", inputs), ("2", inputs), ("2", inputs.reversed())] {
            let web = directory.appendingPathComponent("web-\(documents.count)")
            let run = try TestSupport.imgprep(["convert"] + order + ["--to", "avif,webp", "--widths", "80,160", "-j", jobs,
                                                                     "--manifest", web.appendingPathComponent("images.json").path,
                                                                     "-o", web.appendingPathComponent("img").path])
            #expect(run.status == 0, "\(run.stderr)")
            documents.append(try TestSupport.bytes(web.appendingPathComponent("images.json").path))
        }
        #expect(documents[0] == documents[1] && documents[1] == documents[2])
        #expect(!documents[0].isEmpty)
    }

    @Test func aFailingVariantLeavesNoFileOfItsSet() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.picture(directory, "photo.png", width: 200, height: 100)
        let out = directory.appendingPathComponent("out")
        // A directory where the last variant goes: its rename fails after the others were written.
        try FileManager.default.createDirectory(at: out.appendingPathComponent("photo-200.jpg/x"), withIntermediateDirectories: true)
        let run = try TestSupport.imgprep(["convert", input, "--to", "webp,jpeg", "--widths", "100,200", "-o", out.path, "--json"])
        #expect(run.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["photo-200.jpg"])
        let lines = try Self.lines(run)
        #expect(lines.count == 1 && lines.first?["status"] as? String == "failed")
    }

    @Test func theCacheWritesEveryVariantOfAnInput() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.picture(directory, "photo.png", width: 200, height: 100)
        let cache = directory.appendingPathComponent("cache").path
        var written: [[String: [UInt8]]] = []
        for round in 0..<2 {
            let out = directory.appendingPathComponent("out\(round)").path
            let run = try TestSupport.imgprep(["convert", input, "--to", "webp,jpeg", "--widths", "50,100", "--cache", cache,
                                               "-o", out, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = try Self.lines(run)
            #expect(lines.count == 4)
            #expect(lines.allSatisfy { ($0["cached"] as? Bool ?? false) == (round == 1) })
            var files: [String: [UInt8]] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: out) { files[name] = try TestSupport.bytes(out + "/" + name) }
            written.append(files)
        }
        #expect(written[0] == written[1])
        #expect(written[0].count == 4)
    }

    @Test func planSizesDropWidthsOverTheSourceAndAddItsOwn() {
        var settings = SetSettings(formats: [FormatQuality(format: .webp, quality: 80)])
        settings.widths = [480, 960, 1920]
        let sizes = SetPlan.sizes(sourceWidth: 1000, sourceHeight: 750, settings: settings)
        #expect(sizes.map(\.width) == [480, 960, 1000])
        #expect(sizes.map(\.height) == [360, 720, 750])
        #expect(sizes.map(\.requestedWidth) == [480, 960, nil])
        settings.widths = [100, 200]
        #expect(SetPlan.sizes(sourceWidth: 1000, sourceHeight: 750, settings: settings).map(\.width) == [100, 200])
    }

    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus: corpus web-set test skipped"))
    func corpusPhotosMakeCompleteSets() throws {
        let corpus = try #require(TestSupport.corpus)
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photos = ["heic/libvips__heic-orientation-6.heic", "jpeg/recurser__Landscape_6.jpg",
                      "heic/libheif__with-alpha-512x512.heic", "heic/pillow_heif__LA_8__29x100.heif"]
            .map { corpus.appendingPathComponent($0).path }
        let run = try TestSupport.imgprep(["convert"] + photos + ["--to", "avif,webp,jpeg", "--widths", "64,480",
                                                                  "-o", directory.appendingPathComponent("web").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let variants = try Self.lines(run)
        for photo in photos {
            let own = variants.filter { $0["input"] as? String == photo }
            #expect(own.count >= 3, "\(photo)")
            for variant in own {
                let size = try Self.decodedSize(try #require(variant["path"] as? String), scratch: directory)
                #expect(size.width == variant["width"] as? Int && size.height == variant["height"] as? Int, "\(variant)")
            }
        }
        // The small 29x100 picture gets only its own width, never an enlarged 64 or 480.
        let small = variants.filter { ($0["input"] as? String ?? "").hasSuffix("29x100.heif") }
        #expect(small.allSatisfy { $0["width"] as? Int == 29 })
    }
}
