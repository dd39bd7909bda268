import Foundation
import Testing
@testable import ImagePrep

/// HDR gain maps written as Ultra HDR JPEG, read back by a reader that is not ours: libultrahdr 1.4
/// (inside the imagecodecs wheel of `make testenv`) through scripts/ultrahdr_reference.py, whose HDR
/// rendition must match the source's own map and formula (Apple's, or the Ultra HDR file's values):
/// median error at most 0.1 stop where the map brightens by a quarter stop or more, and the brightest
/// 0.1% within 15%.
@Suite(.enabled(if: TestSupport.corpus != nil && IndependentUltraHDRReader.available,
                "no shared corpus or no .venv-test (make testenv): Ultra HDR tests skipped"))
struct UltraHDRTests {
    static let python = IndependentUltraHDRReader.python
    static let script = TestSupport.packageRoot.appendingPathComponent("scripts/ultrahdr_reference.py").path
    static let heic = TestSupport.corpus?.appendingPathComponent("heic/libvips__apple-heic-gainmap.heic").path ?? ""
    static let ultraHDR = TestSupport.corpus?.appendingPathComponent("jpeg/libvips__ultra-hdr.jpg").path ?? ""

    /// The HEIC's map as libheif decodes it and its headroom as exiftool reads it. The map item has an
    /// irot of its own (stored 2856x2142 like the primary), so libheif hands it out upright.
    static func appleMap(in dir: URL) throws -> (pgm: String, headroom: Double) {
        let plane = try #require(try HeifGainMapReader.storedAppleMap(try TestSupport.bytes(heic)))
        #expect(plane.width == 2142 && plane.height == 2856, "map \(plane.width)x\(plane.height)")
        let path = dir.appendingPathComponent("apple-map.pgm").path
        try Data(Array("P5\n\(plane.width) \(plane.height)\n255\n".utf8) + plane.pixels).write(to: URL(fileURLWithPath: path))
        let headroom = try #require(try TestSupport.exiftool(heic)["XMP-HDRGainMap:HDRGainMapHeadroom"] as? Double)
        return (path, headroom)
    }

    /// The Ultra HDR file's map (exiftool -b -MPImage2, as grey PGM by djpeg) and its hdrgm values as exiftool reads them.
    static func ultraHDRMap(of path: String, in dir: URL) throws -> (pgm: String, values: [String]) {
        let mapJPEG = dir.appendingPathComponent("source-map.jpg")
        try Data(try TestSupport.capture("exiftool", ["-b", "-MPImage2", path]).output).write(to: mapJPEG)
        let pgm = dir.appendingPathComponent("source-map.pgm").path
        let run = try TestSupport.run("/bin/sh", ["-c", "djpeg -grayscale -pnm '\(mapJPEG.path)' > '\(pgm)'"])
        #expect(run.status == 0, "\(run.stderr)")
        let tags = try TestSupport.exiftool(mapJPEG.path)
        let values = ["GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR"].map { "\(tags["XMP-hdrgm:\($0)"] ?? "missing")" }
        return (pgm, values)
    }

    /// Runs the reference check and expects the thresholds; returns its measurements.
    @discardableResult
    static func expectMatches(_ output: String, map: String, quarterTurns: Int, apple headroom: Double? = nil,
                              ultraHDR values: [String] = []) throws -> [String: Any] {
        let reference = headroom.map { ["--apple-headroom", "\($0)"] } ?? (["--ultrahdr"] + values)
        let run = try TestSupport.run(python, [script, output, map, "--rot", "\(quarterTurns)"] + reference)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stderr)")
        print("libultrahdr against the reference, \(URL(fileURLWithPath: output).lastPathComponent): \(run.stdout)", terminator: "")
        let median = try #require(result["median_error_stops"] as? Double, "\(result)")
        let bright = try #require(result["brightest_ratio"] as? Double, "\(result)")
        #expect(median <= 0.1, "median error \(median) stops: \(result)")
        #expect(abs(bright - 1) <= 0.15, "brightest 0.1% off by \(bright): \(result)")
        #expect((result["pixels"] as? Int ?? 0) > 1000, "too few brightened pixels to judge: \(result)")
        return result
    }

    /// exiftool sees an MPF index of two images and the hdrgm XMP pointing to the map.
    static func expectUltraHDRStructure(_ output: String) throws {
        let tags = try TestSupport.exiftool(output)
        #expect(tags["MPF0:NumberOfImages"] as? Int == 2, "MPF: \(tags["MPF0:NumberOfImages"] ?? "none")")
        #expect(tags["XMP-hdrgm:Version"] != nil, "no hdrgm XMP")
        let length = tags["XMP-Container:DirectoryItemLength"] as? Int
        #expect(length != nil && length == tags["MPImage2:MPImageLength"] as? Int, "Item:Length \(length ?? -1) vs MPF")
    }

    static func jsonLine(_ stdout: String) throws -> [String: Any] {
        let line = try #require(stdout.split(separator: "\n").first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func appleHEICAtFullSize() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", Self.heic, "-o", output, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.jsonLine(run.stdout)
        let map = try #require(object["gain_map"] as? [String: Any], "\(object)")
        // Apple's map (half the picture's sides) is written at a quarter of them.
        #expect(map["width"] as? Int == 1071 && map["height"] as? Int == 1428 && map["quality"] as? Int == 85, "\(map)")
        try Self.expectUltraHDRStructure(output)
        let apple = try Self.appleMap(in: dir)
        #expect(abs((map["headroom"] as? Double ?? 0) - apple.headroom) < 0.001, "\(map)")
        try Self.expectMatches(output, map: apple.pgm, quarterTurns: 0, apple: apple.headroom)
    }

    @Test func appleHEICResized() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", Self.heic, "-o", output, "--max-dimension", "1200", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let map = try #require(try Self.jsonLine(run.stdout)["gain_map"] as? [String: Any])
        #expect(map["width"] as? Int == 225 && map["height"] as? Int == 300, "map not scaled in proportion: \(map)")
        try Self.expectUltraHDRStructure(output)
        let apple = try Self.appleMap(in: dir)
        try Self.expectMatches(output, map: apple.pgm, quarterTurns: 0, apple: apple.headroom)
    }

    @Test func appleHEICWithinBudgetCountingTheMap() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        // 2 MB: the map fits beside the full-size picture (at 1 MB it is dropped first: GainMapBudgetTests).
        let run = try TestSupport.imgprep(["compress", Self.heic, "-o", output, "--max-bytes", "2MB", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.jsonLine(run.stdout)
        let bytes = try TestSupport.bytes(output).count
        #expect(bytes <= 2_000_000 && object["bytes"] as? Int == bytes, "\(object)")
        let map = try #require(object["gain_map"] as? [String: Any], "\(object)")
        #expect((map["bytes"] as? Int ?? 0) > 10_000, "\(map)")
        try Self.expectUltraHDRStructure(output)
        let apple = try Self.appleMap(in: dir)
        try Self.expectMatches(output, map: apple.pgm, quarterTurns: 0, apple: apple.headroom)
        // The map costs at most one extra trial over the search for the SDR picture alone (its bytes follow
        // the picture's quality, which the probe's fixed estimate of them does not foresee).
        let sdr = try TestSupport.imgprep(["compress", Self.heic, "-o", dir.appendingPathComponent("sdr.jpg").path,
                                           "--max-bytes", "2MB", "--hdr", "drop", "--json"])
        let plain = try Self.jsonLine(sdr.stdout)
        #expect((object["encodes"] as? Int ?? .max) <= (plain["encodes"] as? Int ?? 0) + 1, "keep \(object) vs drop \(plain)")
    }

    @Test func appleGainMapJPEGReencoded() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // An iPhone "Most Compatible" JPEG, built from the HEIC: the SDR picture, then Apple's map
        // (as stored, with Apple's HDRGainMap XMP) as the MPF second image.
        let primary = dir.appendingPathComponent("primary.jpg").path
        let made = try TestSupport.imgprep(["convert", Self.heic, "-o", primary, "--max-dimension", "800", "--hdr", "drop"])
        #expect(made.status == 0, "\(made.stderr)")
        let apple = try Self.appleMap(in: dir)
        let stored = try #require(try HeifGainMapReader.storedAppleMap(try TestSupport.bytes(Self.heic)))
            .resized(width: 300, height: 400, threads: 1)
        let xmp = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/">
            <HDRGainMap:HDRGainMapVersion>131072</HDRGainMap:HDRGainMapVersion>
            <HDRGainMap:HDRGainMapHeadroom>\(apple.headroom)</HDRGainMap:HDRGainMapHeadroom>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let mapJPEG = try JPEGEncoder().encode(stored, quality: 95, settings: JPEGSettings(),
                                               segments: [JPEGSegment(marker: JPEGSegment.app1, payload: JPEGSegment.xmpHeader + xmp)])
        let iphone = dir.appendingPathComponent("iphone.jpg").path
        try Data(UltraHDRContainer.assemble(primary: try TestSupport.bytes(primary), map: mapJPEG)).write(to: URL(fileURLWithPath: iphone))
        let mapPGM = dir.appendingPathComponent("iphone-map.pgm").path
        try Data(Array("P5\n300 400\n255\n".utf8) + stored.pixels).write(to: URL(fileURLWithPath: mapPGM))

        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", iphone, "-o", output, "-q", "80", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectUltraHDRStructure(output)
        try Self.expectMatches(output, map: mapPGM, quarterTurns: 0, apple: apple.headroom)
    }

    @Test func ultraHDRUnchanged() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", Self.ultraHDR, "-o", output, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try TestSupport.bytes(output) == (try TestSupport.bytes(Self.ultraHDR)))
        #expect(try Self.jsonLine(run.stdout)["gain_map"] != nil)
    }

    @Test func ultraHDRResized() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", Self.ultraHDR, "-o", output, "--max-dimension", "1000", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let map = try #require(try Self.jsonLine(run.stdout)["gain_map"] as? [String: Any])
        #expect(map["width"] as? Int == 250 && map["height"] as? Int == 141, "source map 960x540 for 3840x2160: \(map)")
        try Self.expectUltraHDRStructure(output)
        let source = try Self.ultraHDRMap(of: Self.ultraHDR, in: dir)
        try Self.expectMatches(output, map: source.pgm, quarterTurns: 0, ultraHDR: source.values)
    }

    @Test func ultraHDRCompressed() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["compress", Self.ultraHDR, "-o", output, "--max-bytes", "400KB", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try TestSupport.bytes(output).count <= 400_000)
        try Self.expectUltraHDRStructure(output)
        let source = try Self.ultraHDRMap(of: Self.ultraHDR, in: dir)
        try Self.expectMatches(output, map: source.pgm, quarterTurns: 0, ultraHDR: source.values)
    }

    @Test func ultraHDRTurnedByItsOrientationTag() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("turned.jpg").path
        try FileManager.default.copyItem(atPath: Self.ultraHDR, toPath: input)
        let tagged = try TestSupport.run("exiftool", ["-q", "-n", "-Orientation=6", "-overwrite_original", input])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", input, "-o", output, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try Self.jsonLine(run.stdout)
        #expect(object["width"] as? Int == 2160 && object["height"] as? Int == 3840 && object["lossless"] as? Bool == true, "\(object)")
        let map = try #require(object["gain_map"] as? [String: Any])
        #expect(map["width"] as? Int == 540 && map["height"] as? Int == 960, "\(map)")
        try Self.expectUltraHDRStructure(output)
        #expect(try TestSupport.exiftool(output)["IFD0:Orientation"] as? Int == 1)
        let source = try Self.ultraHDRMap(of: input, in: dir)
        try Self.expectMatches(output, map: source.pgm, quarterTurns: 3, ultraHDR: source.values)
    }

    @Test(arguments: ["heic", "jpeg"])
    func dropWritesPlainSDR(_ kind: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        let input = kind == "heic" ? Self.heic : Self.ultraHDR
        let run = try TestSupport.imgprep(["convert", input, "-o", output, "--hdr", "drop", "--max-dimension", "800", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectNoGainMap(output)
        let lossless = dir.appendingPathComponent("lossless.jpg").path   // the coefficients kept, the map still gone
        if kind == "jpeg" {
            #expect(try TestSupport.imgprep(["convert", input, "-o", lossless, "--hdr", "drop"]).status == 0)
            try Self.expectNoGainMap(lossless)
        }
    }

    static func expectNoGainMap(_ output: String) throws {
        let tags = try TestSupport.exiftool(output)
        let traces = tags.keys.filter { $0.hasPrefix("MPF") || $0.hasPrefix("MPImage") || $0.hasPrefix("XMP-hdrgm")
            || $0.hasPrefix("XMP-Container") || $0.hasPrefix("XMP-HDRGainMap") }
        #expect(traces.isEmpty, "gain-map traces left: \(traces.sorted())")
        let check = try TestSupport.run(python, ["-c", "import imagecodecs,sys; print(imagecodecs.ultrahdr_check(open(sys.argv[1],'rb').read()))", output])
        #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "False", "\(check.stdout) \(check.stderr)")
    }

    @Test(arguments: ["png", "webp", "avif", "heic"])
    func otherFormatsWarnAndClaimNothing(_ format: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (input, origin) in [(Self.ultraHDR, "Ultra HDR"), (Self.heic, "Apple HEIC auxiliary image")] where format != "avif" || input == Self.ultraHDR {
            let run = try TestSupport.imgprep(["convert", input, "--to", format, "-o", dir.path, "--max-dimension", "256", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let object = try Self.jsonLine(run.stdout)
            let warnings = object["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("dropped the HDR gain map (\(origin)") && $0.contains(format.uppercased()) }, "\(warnings)")
            let output = try #require(object["output"] as? String)
            let traces = try TestSupport.exiftool(output).keys.filter { $0.hasPrefix("XMP-hdrgm") || $0.hasPrefix("XMP-Container") || $0.hasPrefix("XMP-HDRGainMap") }
            #expect(traces.isEmpty, "\(format) still claims a gain map: \(traces.sorted())")
        }
    }

    /// The gain map is picture, not metadata: --strip-metadata and --color srgb keep it.
    @Test func keptUnderStripMetadataAndSRGB() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", Self.heic, "-o", output, "--max-dimension", "1000", "--strip-metadata",
                                           "--color", "srgb", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectUltraHDRStructure(output)
        #expect(try TestSupport.exiftool(output)["IFD0:Model"] == nil, "EXIF not stripped")
        let apple = try Self.appleMap(in: dir)
        try Self.expectMatches(output, map: apple.pgm, quarterTurns: 0, apple: apple.headroom)
    }

    @Test func infoShowsTheGainMap() throws {
        let heic = try TestSupport.imgprep(["info", Self.heic])
        #expect(heic.stdout.contains("gain map:     Apple HEIC auxiliary image, 2142x2856, headroom 6.90x (2.79 stops)"), "\(heic.stdout)")
        let jpeg = try TestSupport.imgprep(["info", "--json", Self.ultraHDR])
        let object = try Self.jsonLine(jpeg.stdout)
        let map = try #require(object["gain_map"] as? [String: Any], "\(object)")
        #expect(map["kind"] as? String == "Ultra HDR (hdrgm XMP)" && map["width"] as? Int == 960 && map["bytes"] as? Int == 31738, "\(map)")
        #expect(abs((map["headroom_stops"] as? Double ?? 0) - 6.64386) < 1e-4, "\(map)")
    }
}

/// The test-only Python environment `make testenv` creates, with libultrahdr inside imagecodecs.
enum IndependentUltraHDRReader {
    static let python = TestSupport.packageRoot.appendingPathComponent(".venv-test/bin/python").path
    static let available = FileManager.default.isExecutableFile(atPath: python)
}
