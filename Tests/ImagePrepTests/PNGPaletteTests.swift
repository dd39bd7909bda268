import Foundation
import Testing
@testable import ImagePrep

/// PNG's lossy mode: a quality, a score target or a byte budget with `--to png` writes a palette PNG
/// (libimagequant). Pixels are read back by ImageMagick; scores are SSIMULACRA2's port, which
/// SSIMULACRA2Tests holds to the reference tool's recorded scores (on the screenshot fixture the
/// reference gave 82.37, 89.28 and 91.30 where the port gave 82.34, 89.33 and 91.52).
@Suite(.enabled(if: PNGLosslessTests.haveImageMagick, "ImageMagick convert is not installed: no independent PNG reader"))
struct PNGPaletteTests {
    static func fixture(_ name: String) -> String { TestSupport.fixtures.appendingPathComponent("graphics/\(name)").path }

    /// The file's pixels as ImageMagick decodes them, RGBA.
    static func pixels(_ path: String) throws -> PixelBuffer {
        let size = try TestSupport.run("identify", ["-format", "%w %h", path])
        let numbers = size.stdout.split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 2, "identify: \(size.stdout) \(size.stderr)")
        return PixelBuffer(width: numbers[0], height: numbers[1], channels: 4, pixels: try PNGLosslessTests.referencePixels(path))
    }

    static func score(_ original: String, _ distorted: String) throws -> Double {
        try SSIMULACRA2.score(original: pixels(original), originalProfile: nil, distorted: pixels(distorted), distortedProfile: nil)
    }

    static func colours(_ path: String) throws -> Int {
        try #require(Int(try TestSupport.run("identify", ["-format", "%k", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    static func run(_ arguments: [String]) throws -> (line: [String: Any], output: String, bytes: [UInt8]) {
        let run = try TestSupport.imgprep(arguments + ["--json"])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        let line = try #require(try BatchTests.jsonLines(run.stdout).first)
        let output = try #require(line["output"] as? String, "\(line)")
        return (line, output, try TestSupport.bytes(output))
    }

    /// `--quality N`: a palette (colour type 3), fewer colours and fewer bytes as N falls, every file
    /// smaller than the lossless one, and the same bytes every time.
    @Test func aQualityWritesAPaletteThatShrinksWithIt() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.fixture("screenshot.png")   // 593 colours
        let lossless = try Self.run(["convert", source, "--to", "png", "-o", dir.appendingPathComponent("lossless.png").path])
        var previous = (bytes: lossless.bytes.count, colours: try Self.colours(lossless.output))
        for quality in [95, 80, 50] {
            let path = dir.appendingPathComponent("q\(quality).png").path
            let made = try Self.run(["convert", source, "--to", "png", "--quality", "\(quality)", "-o", path])
            #expect(made.line["quality"] as? Int == quality, "\(made.line)")
            #expect(PNGLosslessTests.layout(made.bytes).colorType == 3)
            let colours = try Self.colours(path)
            #expect(colours <= 256 && colours <= previous.colours, "quality \(quality): \(colours) colours")
            #expect(made.bytes.count < previous.bytes, "quality \(quality): \(made.bytes.count) bytes, \(previous.bytes) above it")
            previous = (made.bytes.count, colours)
            let again = try Self.run(["convert", source, "--to", "png", "--quality", "\(quality)", "-o", dir.appendingPathComponent("again.png").path])
            #expect(again.bytes == made.bytes, "quality \(quality): another run gave other bytes")
        }
        #expect(try Self.score(source, dir.appendingPathComponent("q95.png").path) >= 85)
    }

    /// `--quality auto`: the palette reaches the target, in fewer bytes than the lossless file.
    @Test(arguments: [80.0, 90.0]) func qualityAutoReachesTheTarget(target: Double) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.fixture("screenshot.png")
        let lossless = try Self.run(["convert", source, "--to", "png", "-o", dir.appendingPathComponent("lossless.png").path])
        let made = try Self.run(["convert", source, "--to", "png", "--quality", "auto", "--target-score", "\(Int(target))",
                                 "-o", dir.appendingPathComponent("auto.png").path])
        #expect(PNGLosslessTests.layout(made.bytes).colorType == 3, "\(made.line)")
        #expect(made.bytes.count < lossless.bytes.count)
        let score = try Self.score(source, made.output)
        #expect(score >= target, "scored \(score)")
        #expect(abs(score - (made.line["score"] as? Double ?? 0)) < 0.01, "reported \(made.line)")
    }

    /// `compress --to png`: never over the budget; the lossless file when it fits, a palette when it
    /// does not, a smaller picture when even the lowest quality does not.
    @Test func aBudgetIsNeverExceeded() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.fixture("screenshot.png")
        for budget in [20_000, 3_000, 2_200, 1_400] {
            let made = try Self.run(["compress", source, "--to", "png", "--max-bytes", "\(budget)",
                                     "-o", dir.appendingPathComponent("b\(budget).png").path])
            #expect(made.bytes.count <= budget, "\(budget): \(made.bytes.count) bytes")
            let colourType = PNGLosslessTests.layout(made.bytes).colorType
            if budget == 20_000 {
                #expect(colourType == 2 && made.line["quality"] is NSNull, "fits losslessly: \(made.line)")
                #expect(try PNGLosslessTests.referencePixels(made.output) == PNGLosslessTests.referencePixels(source))
            } else {
                #expect(colourType == 3, "\(budget): \(made.line)")
            }
            #expect((made.line["width"] as? Int == 320) == (budget >= 2_200), "\(budget): \(made.line)")
        }
    }

    /// Alpha survives the palette: transparent stays transparent and opaque stays opaque.
    @Test func alphaIsKept() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.fixture("icon-alpha.png")
        let made = try Self.run(["convert", source, "--to", "png", "--quality", "30", "-o", dir.appendingPathComponent("icon.png").path])
        #expect(PNGLosslessTests.layout(made.bytes).colorType == 3)
        let (before, after) = (try Self.pixels(source), try Self.pixels(made.output))
        var flipped = 0
        for pixel in 0..<before.width * before.height {
            let (a, b) = (before.pixels[pixel * 4 + 3], after.pixels[pixel * 4 + 3])
            if (a == 0 && b != 0) || (a == 255 && b != 255) { flipped += 1 }
        }
        #expect(flipped == 0, "\(flipped) pixels lost their transparency or opacity")
    }
}
