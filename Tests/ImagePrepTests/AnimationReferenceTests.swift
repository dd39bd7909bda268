import Foundation
import Testing
@testable import ImagePrep

/// imgprep's animated WebPs against gif2webp's, both read back by Pillow (not by imgprep) and sampled at
/// the middle of every frame's time (scripts/compare-animations.py): --lossless shows exactly what
/// gif2webp's lossless output shows, with the same total duration and loop count; lossy output is no
/// worse than `gif2webp -lossy` at the same quality over the set (mean PSNR within 0.5 dB of it, bytes
/// within 5%), both measured against gif2webp's lossless output as what a browser shows.
@Suite(.enabled(if: TestVenv.python != nil && TestSupport.toolExists("gif2webp"),
                "needs the test venv with Pillow and numpy (`make testenv`) and gif2webp (`make deps`)"))
struct AnimationReferenceTests {
    static let gif = TestSupport.fixtures.appendingPathComponent("gif").path
    static let script = TestSupport.packageRoot.appendingPathComponent("scripts/compare-animations.py").path

    struct Comparison {
        var reference: [String: Any], candidate: [String: Any]
        var differingSamples: Int, meanPSNR: Double

        init(_ reference: String, _ candidate: String) throws {
            let run = try TestSupport.run(try #require(TestVenv.python), [AnimationReferenceTests.script, reference, candidate])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stderr)")
            self.reference = try #require(object["reference"] as? [String: Any], "\(object)")
            self.candidate = try #require(object["candidate"] as? [String: Any])
            differingSamples = try #require(object["differing_samples"] as? Int)
            meanPSNR = try #require(object["mean_psnr"] as? Double)
        }
    }

    /// gif2webp's output for `source` (a fixture name or a path to a GIF).
    static func gif2webp(_ source: String, _ options: [String], in dir: URL) throws -> String {
        let path = source.hasSuffix(".gif") ? source : "\(gif)/\(source).gif"
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let output = dir.appendingPathComponent("gif2webp\(options.joined())-\(name).webp").path
        let run = try TestSupport.run("gif2webp", ["-quiet"] + options + [path, "-o", output])
        #expect(run.status == 0, "gif2webp \(name): \(run.stderr)")
        return output
    }

    static func imgprep(_ source: String, _ options: [String], in dir: URL) throws -> String {
        let path = source.hasSuffix(".gif") ? source : "\(gif)/\(source).gif"
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let out = dir.appendingPathComponent("imgprep\(options.joined())")
        let run = try TestSupport.imgprep(["convert", path, "--to", "webp", "--strip-metadata"] + options + ["-o", out.path])
        #expect(run.status == 0, "imgprep \(name): \(run.stderr)")
        return out.appendingPathComponent("\(name).webp").path
    }

    @Test(arguments: ["disposal", "no-loop", "loop-3", "orbit", "wave", "stripes", "still", "still-interlaced"])
    func losslessShowsExactlyWhatGif2webpShows(_ name: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let comparison = try Comparison(try Self.gif2webp(name, [], in: dir), try Self.imgprep(name, ["--lossless"], in: dir))
        #expect(comparison.differingSamples == 0, "\(name)")
        #expect(comparison.reference["duration"] as? Int == comparison.candidate["duration"] as? Int, "\(name)")
        #expect(comparison.reference["loop"] as? Int == comparison.candidate["loop"] as? Int, "\(name)")
    }

    @Test func animatedWebPKeepsEveryFrameLosslessly() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("webp/animated.webp").path
        let run = try TestSupport.imgprep(["convert", source, "--to", "webp", "--lossless", "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let comparison = try Comparison(source, dir.appendingPathComponent("animated.webp").path)
        #expect(comparison.differingSamples == 0)
        #expect(comparison.candidate["frames"] as? Int == 2 && comparison.candidate["duration"] as? Int == 200)
    }

    @Test func lossyIsNoWorseThanGif2webpAtTheSameQuality() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.compareLossy(["disposal", "no-loop", "loop-3", "orbit", "wave", "stripes"], in: dir)
    }

    /// Photo pans (crops moving across a corpus photo, quantised to 256 colours by ImageMagick), the
    /// kind of GIF where lossy frames win: made at test time, never copied into the repository.
    @Test(.enabled(if: TestSupport.corpus != nil && TestSupport.toolExists("convert"), "needs the shared corpus and ImageMagick"))
    func lossyPhotoPansAreNoWorseThanGif2webp() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let corpus = try #require(TestSupport.corpus).appendingPathComponent("jpeg")
        var gifs: [String] = []
        for photo in ["immich__craft-beer.jpg", "immich__thompson-springs.jpg", "recurser__Landscape_0.jpg", "libvips__sample.jpg"] {
            let source = corpus.appendingPathComponent(photo).path
            try #require(FileManager.default.fileExists(atPath: source), "\(photo) is not in the corpus")
            let base = dir.appendingPathComponent("\(photo).png").path
            let gif = dir.appendingPathComponent("pan-\(gifs.count).gif").path
            let crops = (0..<6).map { "\\( \(base) -crop 160x120+\($0 * 8)+\($0 * 5) +repage \\)" }.joined(separator: " ")
            let script = "convert \(source) -auto-orient -resize 240x180^ -gravity center -extent 240x180 \(base) 2>/dev/null && "
                + "convert -delay 8 -loop 0 \(crops) -layers Optimize \(gif)"
            let made = try TestSupport.run("/bin/sh", ["-c", script])
            #expect(made.status == 0, "\(photo): \(made.stderr)")
            gifs.append(gif)
        }
        try #require(gifs.count >= 2, "corpus photos to pan across")
        try Self.compareLossy(gifs, in: dir)
    }

    /// The encoder settings docs/formats.md states, checked against gif2webp (the same WebPAnimEncoder
    /// given the same settings): every frame's rectangle, disposal, blending, compression and size as
    /// `webpmux -info` lists them. Lossy: frames lossy or lossless whichever is smaller, method 3, no
    /// forced keyframes and no minimize_size. Lossless: method 4 at effort 75 (cwebp's default), no
    /// forced keyframes and no minimize_size.
    @Test(arguments: ["disposal", "no-loop", "orbit", "wave", "stripes"])
    func framesAreWhatGif2webpWritesWithTheStatedSettings(_ name: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func frames(_ path: String) throws -> [String] {
            let run = try TestSupport.run("webpmux", ["-info", path])
            #expect(run.status == 0, "webpmux \(path): \(run.stderr)")
            return run.stdout.components(separatedBy: "\n").filter { $0.range(of: #"^ *[0-9]+:"#, options: .regularExpression) != nil }
        }
        let lossy = try frames(try Self.imgprep(name, ["--quality", "80"], in: dir))
        #expect(!lossy.isEmpty)
        #expect(lossy == (try frames(try Self.gif2webp(name, ["-mixed", "-q", "80", "-m", "3", "-kmax", "0"], in: dir))), "\(name)")
        let lossless = try frames(try Self.imgprep(name, ["--lossless"], in: dir))
        #expect(!lossless.isEmpty)
        #expect(lossless == (try frames(try Self.gif2webp(name, ["-q", "75", "-m", "4", "-kmax", "0"], in: dir))), "\(name)")
    }

    /// imgprep -q 80 and gif2webp -lossy -q 80 against gif2webp's lossless output: mean PSNR within
    /// 0.5 dB, total bytes within 5%.
    static func compareLossy(_ sources: [String], in dir: URL) throws {
        var ours: [(bytes: Int, psnr: Double)] = [], theirs: [(bytes: Int, psnr: Double)] = []
        var table = ["file         imgprep bytes    dB  gif2webp bytes    dB"]
        for source in sources {
            let reference = try gif2webp(source, [], in: dir)
            let mine = try imgprep(source, ["--quality", "80"], in: dir)
            let lossy = try gif2webp(source, ["-lossy", "-q", "80"], in: dir)
            let a = try Comparison(reference, mine), b = try Comparison(reference, lossy)
            #expect(a.candidate["duration"] as? Int == a.reference["duration"] as? Int && a.candidate["loop"] as? Int == a.reference["loop"] as? Int,
                    "\(source)")
            ours.append((try TestSupport.bytes(mine).count, a.meanPSNR))
            theirs.append((try TestSupport.bytes(lossy).count, b.meanPSNR))
            let name = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
            table.append(name.padding(toLength: 12, withPad: " ", startingAt: 0)
                         + String(format: " %13d %5.1f %15d %5.1f", ours[ours.count - 1].bytes, a.meanPSNR, theirs[theirs.count - 1].bytes, b.meanPSNR))
        }
        let bytes = (ours.reduce(0) { $0 + $1.bytes }, theirs.reduce(0) { $0 + $1.bytes })
        let psnr = (ours.reduce(0) { $0 + $1.psnr } / Double(ours.count), theirs.reduce(0) { $0 + $1.psnr } / Double(theirs.count))
        table.append(String(format: "all          %13d %5.1f %15d %5.1f", bytes.0, psnr.0, bytes.1, psnr.1))
        print(table.joined(separator: "\n"))
        #expect(psnr.0 >= psnr.1 - 0.5, "\(table.joined(separator: "\n"))")
        #expect(Double(bytes.0) <= 1.05 * Double(bytes.1), "\(table.joined(separator: "\n"))")
    }
}

/// The test-only venv `make testenv` creates (Pillow and numpy from PyPI, readers that are not ours).
enum TestVenv {
    /// Its Python, when it can import Pillow and numpy.
    static let python: String? = {
        let path = TestSupport.packageRoot.appendingPathComponent(".venv-test/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: path),
              let run = try? TestSupport.run(path, ["-c", "import PIL, numpy"]), run.status == 0 else { return nil }
        return path
    }()
}
