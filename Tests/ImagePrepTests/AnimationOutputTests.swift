import Foundation
import Testing
@testable import ImagePrep

/// Animated GIFs and WebPs written as WebP stay animated: frames, timing, loops, alpha and metadata,
/// resized with --max-dimension, and within a byte budget. Outputs are read back with webpmux (libwebp's
/// own tool) and compared with the source's frames.
@Suite(.enabled(if: TestSupport.toolExists("webpmux"), "needs webpmux (Debian package webp, `make deps`)"))
struct AnimationOutputTests {
    static let gif = TestSupport.fixtures.appendingPathComponent("gif").path

    /// What `webpmux -info` says of an animated WebP.
    struct MuxInfo {
        var width = 0, height = 0, frames = 0, loopCount = -1, duration = 0
        var features = ""
        var compressions: [String] = []

        init(_ path: String) throws {
            let run = try TestSupport.run("webpmux", ["-info", path])
            for line in run.stdout.components(separatedBy: "\n") {
                let words = line.split(separator: " ").map(String.init)
                if line.hasPrefix("Canvas size:"), words.count >= 5 { (width, height) = (Int(words[2]) ?? 0, Int(words[4]) ?? 0) }
                if line.hasPrefix("Features present:") { features = line }
                if line.contains("Loop Count :"), let count = words.last.flatMap({ Int($0) }) { loopCount = count }
                if line.hasPrefix("Number of frames:"), let count = words.last.flatMap({ Int($0) }) { frames = count }
                if words.first?.hasSuffix(":") == true, Int(words[0].dropLast()) != nil, words.count >= 11 {
                    duration += Int(words[6]) ?? 0
                    compressions.append(words[10])
                }
            }
        }
    }

    static func convert(_ source: String, _ options: [String], in dir: URL) throws -> (run: TestSupport.Run, output: String) {
        let run = try TestSupport.imgprep(["convert", source, "--to", "webp"] + options + ["-o", dir.path])
        let name = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent + ".webp"
        return (run, dir.appendingPathComponent(name).path)
    }

    @Test func gifWrittenAsWebPStaysAnimatedWithItsTimingLoopsAlphaAndXMP() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, output) = try Self.convert("\(Self.gif)/disposal.gif", [], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("comments dropped from 1 WEBP output"), "\(run.stderr)")
        let info = try MuxInfo(output)
        #expect((info.width, info.height, info.loopCount, info.duration) == (48, 32, 0, 800))
        #expect(info.frames == 4, "the two identical last frames merge")
        #expect(info.features.contains("animation") && info.features.contains("transparency") && info.features.contains("XMP"))
        #expect(try TestSupport.exiftool(output)["XMP-dc:Title"] as? String == "Disposal fixture")
    }

    @Test func losslessOutputShowsTheSourceFramesExactly() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["disposal", "orbit", "no-loop"] {
            let (run, output) = try Self.convert("\(Self.gif)/\(name).gif", ["--lossless"], in: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try MuxInfo(output).compressions.allSatisfy { $0 == "lossless" })
            let options = DecodeOptions(maxPixels: 1 << 24, keepsAnimation: true)
            guard case .animation(let source) = try GIFDecoder().decode(TestSupport.bytes("\(Self.gif)/\(name).gif"), options: options).content,
                  case .animation(let written) = try WebPDecoder().decode(TestSupport.bytes(output), options: options).content else {
                Issue.record("\(name): both animated"); continue
            }
            #expect(written.totalDuration == source.totalDuration && written.loopCount == source.loopCount, "\(name)")
            for time in Self.middles(source) + Self.middles(written) {
                let a = Self.shown(source, at: time), b = Self.shown(written, at: time)
                #expect(Self.premultiplied(a) == Self.premultiplied(b), "\(name) at \(time) ms")
            }
        }
    }

    @Test func animatedWebPStaysAnimated() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, output) = try Self.convert(TestSupport.fixtures.appendingPathComponent("webp/animated.webp").path, [], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("first frame"), "\(run.stderr)")
        let info = try MuxInfo(output)
        #expect((info.width, info.height, info.frames, info.loopCount, info.duration) == (48, 32, 2, 0, 200))
    }

    /// libwebp's threads (analysis, and the lossless and lossy trials of each frame) do not change a byte.
    @Test(arguments: [["--quality", "80"], ["--lossless"]])
    func animationBytesDoNotDependOnThreads(_ options: [String]) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sources = ["disposal", "orbit", "wave", "stripes"].map { "\(Self.gif)/\($0).gif" }
        func outputs(threads: Int) throws -> [[UInt8]] {
            let out = dir.appendingPathComponent("threads-\(threads)")
            let run = try TestSupport.imgprep(["convert"] + sources + ["--to", "webp"] + options + ["-j", "1", "-o", out.path],
                                              environment: TestSupport.environment(adding: ["IMGPREP_THREADS_PER_IMAGE": "\(threads)"]))
            #expect(run.status == 0, "\(run.stderr)")
            return try ["disposal", "orbit", "wave", "stripes"].map { try TestSupport.bytes(out.appendingPathComponent("\($0).webp").path) }
        }
        let one = try outputs(threads: 1)
        #expect(one.allSatisfy { !$0.isEmpty })
        #expect(try outputs(threads: 4) == one, "\(options)")
    }

    @Test func animatedWebPWithinBudgetIsLeftByteForByte() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("webp/animated.webp").path
        let run = try TestSupport.imgprep(["compress", "--to", "webp", "--max-bytes", "100KB", "--json", source, "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"unchanged\":true"), "\(run.stdout)")
        #expect(try TestSupport.bytes(dir.appendingPathComponent("animated.webp").path) == TestSupport.bytes(source))
    }

    @Test func maxDimensionResizesEveryFrame() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (run, output) = try Self.convert("\(Self.gif)/wave.gif", ["--max-dimension", "24", "--lossless"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let info = try MuxInfo(output)
        #expect((info.width, info.height, info.frames, info.duration) == (24, 18, 6, 480))
        // The frames are the source's frames resized with the stills' filter.
        let options = DecodeOptions(maxPixels: 1 << 24, keepsAnimation: true)
        guard case .animation(let source) = try GIFDecoder().decode(TestSupport.bytes("\(Self.gif)/wave.gif"), options: options).content,
              case .animation(let written) = try WebPDecoder().decode(TestSupport.bytes(output), options: options).content else {
            Issue.record("both animated"); return
        }
        for (a, b) in zip(source.frames, written.frames) {
            #expect(resized(a.canvas, width: 24, height: 18).pixels == b.canvas.pixels)
        }
    }

    @Test func stripMetadataAndColourConversionWorkAsForStills() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stripped = try Self.convert("\(Self.gif)/disposal.gif", ["--strip-metadata"], in: dir.appendingPathComponent("a"))
        #expect(stripped.run.status == 0 && !stripped.run.stderr.contains("comments"), "\(stripped.run.stderr)")
        #expect(!(try MuxInfo(stripped.output).features.contains("XMP")))
        let srgb = try Self.convert("\(Self.gif)/disposal.gif", ["--color", "srgb"], in: dir.appendingPathComponent("b"))
        #expect(srgb.run.status == 0, "\(srgb.run.stderr)")
        let features = try MuxInfo(srgb.output).features
        #expect(features.contains("ICC profile") && features.contains("animation"), "\(features)")
    }

    @Test func animationTooBigAtTheFloorIsShrunkLikeAStill() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["compress", "--to", "webp", "--max-bytes", "3000", "\(Self.gif)/stripes.gif", "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("40x30 does not fit 3000 B at quality 40; wrote"), "\(run.stderr)")
        let output = dir.appendingPathComponent("stripes.webp").path
        let info = try MuxInfo(output)
        #expect(try TestSupport.bytes(output).count <= 3000 && info.frames == 5 && info.width < 40 && info.duration == 500)
    }

    @Test func budgetGivesTheHighestQualityAtWhichTheWholeAnimationFits() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let budget = 4200   // stripes.gif: 3704 bytes at quality 60, 4606 at 80
        let run = try TestSupport.imgprep(["compress", "--to", "webp", "--max-bytes", "\(budget)", "--json",
                                           "\(Self.gif)/stripes.gif", "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stdout.components(separatedBy: "\n").first { $0.contains("\"input\"") })
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let quality = try #require(report["quality"] as? Int)
        let encodes = try #require(report["encodes"] as? Int)
        // The stills' search: at most 7 aimed trials, then bisection of what is left of qualities 40-95.
        #expect(encodes >= 2 && encodes <= 13, "\(report)")
        let output = dir.appendingPathComponent("stripes.webp").path
        let size = try TestSupport.bytes(output).count
        #expect(size <= budget && report["bytes"] as? Int == size)
        let info = try MuxInfo(output)
        #expect((info.width, info.height, info.frames, info.loopCount, info.duration) == (40, 30, 5, 3, 500))
        // One quality higher does not fit.
        let above = try Self.convert("\(Self.gif)/stripes.gif", ["--quality", "\(quality + 1)"], in: dir.appendingPathComponent("above"))
        #expect(above.run.status == 0)
        #expect(try TestSupport.bytes(above.output).count > budget, "quality \(quality + 1)")
    }

    // MARK: Timing helpers

    static func middles(_ animation: Animation) -> [Int] {
        var start = 0
        return animation.frames.map { frame in defer { start += frame.duration }; return start + frame.duration / 2 }
    }

    static func shown(_ animation: Animation, at time: Int) -> PixelBuffer {
        var start = 0
        for frame in animation.frames {
            if time < start + frame.duration { return frame.canvas }
            start += frame.duration
        }
        return animation.frames[animation.frames.count - 1].canvas
    }

    /// RGBA with the colour of fully transparent pixels zeroed (lossless WebP may change it).
    static func premultiplied(_ image: PixelBuffer) -> [UInt8] {
        var pixels = image.pixels
        for i in stride(from: 0, to: pixels.count, by: 4) where pixels[i + 3] == 0 { pixels[i] = 0; pixels[i + 1] = 0; pixels[i + 2] = 0 }
        return pixels
    }
}
