import Foundation
import Testing
@testable import ImagePrep

/// A JPEG missing its last bytes fails by default; `--allow-truncated` writes what decodes, says how much
/// of the picture is missing, and never hands the file on as it is.
struct TruncatedJPEGTests {
    static let cut = TestSupport.fixtures.appendingPathComponent("bad/truncated.jpg").path

    @Test func failsByDefault() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for command in [["convert", "--to", "png"], ["compress", "--max-bytes", "1MB"]] {
            let run = try TestSupport.imgprep(command + [Self.cut, "-o", dir.path])
            #expect(run.status == 1 && run.stderr.contains("truncated.jpg: decode: libjpeg: Premature end of JPEG file; the file ends early: --allow-truncated writes what arrived, the missing rows grey\n"), "\(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// The rows the warning calls missing are the grey rows of the output (libjpeg fills them with mid
    /// grey), and the rows above them are the picture.
    @Test func allowTruncatedWritesWhatDecodesAndSaysHowMuchIsMissing() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["convert", "--allow-truncated", "--to", "png", Self.cut, "-o", dir.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try BatchTests.jsonLines(run.stdout).first)
        let warning = try #require((line["warnings"] as? [String])?.first { $0.hasPrefix("the file ends early") }, "\(line)")
        let numbers = warning.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
        // "the bottom M of H rows (P% of the picture)"
        let (missing, height, share) = (Int(numbers[0]), Int(numbers[1]), numbers[2])
        #expect(height == 120 && missing > 0 && missing < height, "\(warning)")
        #expect(abs(share - 100 * Double(missing) / Double(height)) < 0.05, "\(warning)")
        let png = try PNGDecoder().decode(try TestSupport.bytes(dir.appendingPathComponent("truncated.png").path),
                                          options: DecodeOptions(maxPixels: 1 << 20)).content.rgb()
        func isGrey(_ row: Int) -> Bool {
            (0..<png.width * 3).allSatisfy { abs(Int(png.pixels[(row * png.width) * 3 + $0]) - 128) <= 2 }
        }
        let firstGrey = try #require((0..<png.height).first(where: isGrey))
        #expect((firstGrey..<png.height).allSatisfy(isGrey), "grey to the bottom")
        // The warning counts from the top of the row of blocks (16 pixels here) the data ran out in, whose
        // left part is real: the first all-grey row is within that row of blocks or just below it.
        #expect((0...17).contains(firstGrey - (height - missing)), "first grey row \(firstGrey), warning says \(height - missing)")
    }

    /// compress within budget and a JPEG output would keep a sound file as it is: a truncated one is re-encoded.
    @Test func aTruncatedFileIsNeverKeptAsItIs() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (index, command) in [["compress", "--max-bytes", "1MB"], ["convert", "--to", "jpeg"]].enumerated() {
            let out = dir.appendingPathComponent("\(index)")
            let run = try TestSupport.imgprep(command + ["--allow-truncated", Self.cut, "-o", out.path, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let line = try #require(try BatchTests.jsonLines(run.stdout).first)
            #expect(line["unchanged"] == nil && line["lossless"] == nil && (line["encodes"] as? Int ?? 0) >= 1, "\(line)")
            let written = try TestSupport.bytes(out.appendingPathComponent("truncated.jpg").path)
            #expect(written != (try TestSupport.bytes(Self.cut)))
            #expect((try? JPEGDecoder.checkIntegrity(of: written)) != nil, "the output is a whole JPEG")
        }
    }
}
