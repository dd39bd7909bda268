import Foundation
import Testing

/// Ultra HDR JPEGs as libultrahdr 1.4 writes them from an HDR picture (scripts/ultrahdr_inputs.py, through
/// the imagecodecs wheel): a colour (three-channel) map, the same map as grey, and a colour map with values
/// per channel; and one made from a real HDR photo of the corpus. Every output must be Ultra HDR that
/// libultrahdr decodes to the input's own HDR rendition (turned and area-averaged to the output's size):
/// median error at most 0.05 stop over every channel of every pixel that is not black, 90% of them within
/// 0.1 stop; the same for the boost alone (HDR over SDR rendition). A resized photo is held to its boost
/// only: its SDR picture is resized in its sRGB encoding, as every rival resizes, which moves textured
/// areas' linear-light average (0.07 stop on the photo) whatever happens to the map.
@Suite(.enabled(if: IndependentUltraHDRReader.available, "no .venv-test (make testenv): colour gain-map tests skipped"))
struct ColourGainMapTests {
    static let python = IndependentUltraHDRReader.python
    static let script = TestSupport.packageRoot.appendingPathComponent("scripts/ultrahdr_inputs.py").path
    static let kinds: [(name: String, arguments: [String])] = [
        ("colour", ["--map", "colour"]), ("grey", ["--map", "grey"]), ("per-channel", ["--map", "colour", "--per-channel"]),
    ]

    /// A libultrahdr input of `kind` in `dir`.
    static func input(_ kind: String, in dir: URL) throws -> String {
        let arguments = try #require(kinds.first { $0.name == kind }).arguments
        let path = dir.appendingPathComponent("\(kind).jpg").path
        let run = try TestSupport.run(python, [script, "make", path] + arguments)
        try #require(run.status == 0, "\(run.stdout) \(run.stderr)")
        return path
    }

    /// Runs `body` with a libultrahdr input of `kind` in a directory of its own, removed afterwards.
    static func withInput(_ kind: String, _ body: (URL, String) throws -> Void) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try body(dir, try input(kind, in: dir))
    }

    /// The comparison of `output`'s HDR rendition with `input`'s, expected within the thresholds.
    static func expectSameHDR(_ input: String, _ output: String, quarterTurns: Int = 0, boostOnly: Bool = false) throws {
        let run = try TestSupport.run(python, [script, "compare", input, output, "--rot", "\(quarterTurns)"])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stderr)")
        let name = URL(fileURLWithPath: output).lastPathComponent
        for measure in boostOnly ? ["boost_"] : ["", "boost_"] {
            let median = try #require(result["\(measure)median_error_stops"] as? Double, "\(result)")
            let p90 = try #require(result["\(measure)p90_error_stops"] as? Double, "\(result)")
            #expect(median <= 0.05, "\(name): \(measure)median error \(median) stops: \(result)")
            #expect(p90 <= 0.1, "\(name): \(measure)90th percentile \(p90) stops: \(result)")
        }
        #expect((result["samples"] as? Int ?? 0) > 10_000, "too few samples to judge: \(result)")
    }

    static func run(_ arguments: [String]) throws {
        let run = try TestSupport.imgprep(arguments)
        try #require(run.status == 0, "imgprep \(arguments.joined(separator: " ")): \(run.stderr)")
        #expect(!run.stderr.contains("gain map"), "no gain-map warning expected: \(run.stderr)")
    }

    @Test(arguments: kinds.map(\.name))
    func unchangedSize(_ kind: String) throws {
        try Self.withInput(kind) { dir, source in
            let output = dir.appendingPathComponent("out.jpg").path
            try Self.run(["convert", source, "--to", "jpeg", "-o", output])
            try Self.expectSameHDR(source, output)
            // The map keeps its channels: libultrahdr's colour maps stay colour.
            let map = dir.appendingPathComponent("map.jpg")
            try Data(try TestSupport.capture("exiftool", ["-b", "-MPImage2", output]).output).write(to: map)
            let components = try TestSupport.exiftool(map.path)["File:ColorComponents"] as? Int
            #expect(components == (kind == "grey" ? 1 : 3), "\(kind): map has \(components.map(String.init) ?? "no") components")
        }
    }

    @Test(arguments: kinds.map(\.name))
    func resized(_ kind: String) throws {
        try Self.withInput(kind) { dir, source in
            let output = dir.appendingPathComponent("out.jpg").path
            try Self.run(["convert", source, "--to", "jpeg", "--max-dimension", "200", "-o", output])
            #expect(try TestSupport.exiftool(output)["Composite:ImageSize"] as? String == "200 133")
            try Self.expectSameHDR(source, output)
        }
    }

    @Test(arguments: kinds.map(\.name))
    func compressedToHalf(_ kind: String) throws {
        try Self.withInput(kind) { dir, source in
            let half = try TestSupport.bytes(source).count / 2
            let output = dir.appendingPathComponent("out.jpg").path
            try Self.run(["compress", source, "--max-bytes", "\(half)", "-o", output])
            let written = try TestSupport.bytes(output).count
            #expect(written <= half, "\(written) bytes over the budget of \(half)")
            try Self.expectSameHDR(source, output)
        }
    }

    @Test(arguments: kinds.map(\.name))
    func turnedByOrientation6(_ kind: String) throws {
        try Self.withInput(kind) { dir, source in
            let turned = dir.appendingPathComponent("turned.jpg").path
            try FileManager.default.copyItem(atPath: source, toPath: turned)
            let tag = try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", turned])
            try #require(tag.status == 0, "\(tag.stderr)")
            let output = dir.appendingPathComponent("out.jpg").path
            try Self.run(["convert", turned, "--to", "jpeg", "-o", output])
            let tags = try TestSupport.exiftool(output)
            #expect(tags["Composite:ImageSize"] as? String == "320 480", "\(tags["Composite:ImageSize"] ?? "no size")")
            #expect([nil, 1].contains(tags["IFD0:Orientation"] as? Int), "\(tags["IFD0:Orientation"] ?? "")")
            try Self.expectSameHDR(source, output, quarterTurns: 1)
        }
    }

    @Test(arguments: kinds.map(\.name))
    func webSet(_ kind: String) throws {
        try Self.withInput(kind) { dir, source in
            let site = dir.appendingPathComponent("site")
            let run = try TestSupport.imgprep(["convert", source, "--to", "webp,jpeg", "--widths", "160,320", "-o", site.path + "/",
                                               "--manifest", site.appendingPathComponent("images.json").path])
            try #require(run.status == 0, "\(run.stderr)")
            for width in [160, 320] {
                try Self.expectSameHDR(source, site.appendingPathComponent("\(kind)-\(width).jpg").path)
            }
        }
    }

    /// A real HDR photo (a Canon EOS R8 picture in BT.2020 PQ, from the corpus) made Ultra HDR by
    /// libultrahdr: kept, resized, compressed and turned.
    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus: the real-photo colour gain map skipped"))
    func realHDRPhoto() throws {
        let heic = try #require(TestSupport.corpus).appendingPathComponent("heic/sdwebimage__TestHDR.heic").path
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("photo.jpg").path
        let made = try TestSupport.run(Self.python, [Self.script, "make", source, "--from-heic", heic])
        try #require(made.status == 0, "\(made.stdout) \(made.stderr)")
        let out = { (name: String) in dir.appendingPathComponent(name).path }
        try Self.run(["convert", source, "--to", "jpeg", "-o", out("same.jpg")])
        try Self.expectSameHDR(source, out("same.jpg"))
        try Self.run(["convert", source, "--to", "jpeg", "--max-dimension", "300", "-o", out("small.jpg")])
        try Self.expectSameHDR(source, out("small.jpg"), boostOnly: true)
        let half = try TestSupport.bytes(source).count / 2
        let budget = try TestSupport.imgprep(["compress", source, "--max-bytes", "\(half)", "-o", out("half.jpg")])
        try #require(budget.status == 0, "\(budget.stderr)")
        #expect(try TestSupport.bytes(out("half.jpg")).count <= half)
        try Self.expectSameHDR(source, out("half.jpg"), boostOnly: true)
        try FileManager.default.copyItem(atPath: source, toPath: out("turned.jpg"))
        #expect(try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", out("turned.jpg")]).status == 0)
        try Self.run(["convert", out("turned.jpg"), "--to", "jpeg", "-o", out("upright.jpg")])
        try Self.expectSameHDR(source, out("upright.jpg"), quarterTurns: 1)
    }

    @Test func infoNamesTheChannels() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.input("per-channel", in: dir)
        let run = try TestSupport.imgprep(["info", "--json", source])
        try #require(run.status == 0, "\(run.stderr)")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let map = try #require(info["gain_map"] as? [String: Any], "\(info)")
        #expect(map["channels"] as? Int == 3 && map["per_channel_values"] as? Bool == true, "\(map)")
        let text = try TestSupport.imgprep(["info", source])
        #expect(text.stdout.contains("colour, values per channel"), "\(text.stdout)")
    }
}
