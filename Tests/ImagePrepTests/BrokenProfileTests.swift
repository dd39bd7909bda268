import Foundation
import Testing
@testable import ImagePrep

/// A damaged ICC profile, or one for other pixels, is dropped with one warning when it is read, and
/// every output format is written without it; harmless profiles libpng dislikes are kept.
@Suite struct BrokenProfileTests {
    static let outputs = ["jpeg", "png", "webp", "avif", "heic"]
    static let picture = CodecTestSupport.gradient(width: 16, height: 16)

    static func jpeg(profile: [UInt8]) throws -> [UInt8] {
        try JPEGEncoder().encode(picture, quality: 90, settings: JPEGSettings(), segments: JPEGSegment.iccSegments(profile))
    }

    /// SRGBProfile with one field changed.
    static func srgb(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
        var profile = SRGBProfile.bytes
        edit(&profile)
        return profile
    }

    /// A PNG of `picture` with `profile` as its iCCP chunk (after the signature and IHDR).
    static func png(profile: [UInt8]) throws -> [UInt8] {
        let plain = try PNGEncoder.encode(picture, metadata: ImageMetadata())
        let iccp = HostileFiles.pngChunk("iCCP", Array("Test\0".utf8) + [0] + PNGProfileWarningTests.zlibStored(profile))
        return Array(plain.prefix(33)) + iccp + Array(plain.dropFirst(33))
    }

    /// A still GIF (the fixture) with `profile` as an ICCRGBG1012 application extension.
    static func gif(profile: [UInt8]) throws -> [UInt8] {
        let still = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("gif/still.gif").path)
        let flags = Int(still[10])
        let afterPalette = 13 + (flags & 0x80 != 0 ? 3 << ((flags & 7) + 1) : 0)
        var extensionBytes: [UInt8] = [0x21, 0xFF, 11] + Array("ICCRGBG1012".utf8)
        for start in stride(from: 0, to: profile.count, by: 255) {
            let chunk = profile[start..<min(start + 255, profile.count)]
            extensionBytes += [UInt8(chunk.count)] + chunk
        }
        return Array(still.prefix(afterPalette)) + extensionBytes + [0] + Array(still.dropFirst(afterPalette))
    }

    /// Each hostile input, its file name and what the warning must say.
    static func hostileInputs() throws -> [(name: String, bytes: [UInt8], says: String)] {
        // The iCCP chunk's profile says it is 100 bytes longer than it is.
        let lyingLength = srgb { $0.replaceSubrange(0..<4, with: HostileFiles.bigEndian(UInt32(SRGBProfile.bytes.count + 100))) }
        let tagsPastEnd = srgb { $0.replaceSubrange(128..<132, with: HostileFiles.bigEndian(1000)) }
        let tagOutside = srgb { $0.replaceSubrange(136..<140, with: HostileFiles.bigEndian(UInt32(SRGBProfile.bytes.count))) }
        let broken = srgb { $0.replaceSubrange(36..<40, with: Array("xxxx".utf8)) }
        var webpMetadata = ImageMetadata()
        webpMetadata.icc = broken
        var heifMetadata = ImageMetadata()
        heifMetadata.icc = tagsPastEnd
        return [
            ("zeroed.jpg", try jpeg(profile: [UInt8](repeating: 0, count: 500)), "its header gives its size as 0 bytes, but it is 500"),
            ("lying.png", try png(profile: lyingLength), "ICC profile dropped"),
            ("zeroed.gif", try gif(profile: [UInt8](repeating: 0, count: 1 << 20)), "its header gives its size as 0 bytes, but it is 1048576"),
            ("tags.jpg", try jpeg(profile: tagsPastEnd), "its tag table (1000 tags) runs past its end"),
            ("tag.jpg", try jpeg(profile: tagOutside), "runs past its end"),
            ("cmyk.jpg", try jpeg(profile: PNGProfileWarningTests.profile(colourSpace: "CMYK")), "it describes CMYK data, but the picture is RGB"),
            ("broken.webp", try WebPEncoder().encode(.rgb(picture), quality: 80, metadata: webpMetadata), "no 'acsp' signature"),
            ("broken.heic", try HeifEncoder(codec: .hevc).encode(.rgb(picture), quality: 80, metadata: heifMetadata), "runs past its end"),
        ]
    }

    @Test func aBrokenProfileIsDroppedWithOneWarningInEveryOutput() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for input in try Self.hostileInputs() {
            try Data(input.bytes).write(to: dir.appendingPathComponent(input.name))
            for format in Self.outputs {
                let out = "out-\(format)-" + input.name.replacingOccurrences(of: ".", with: "-")   // a directory
                let run = try TestSupport.imgprep(["convert", "--to", format, "-o", out, input.name], cwd: dir)
                let warnings = run.stderr.components(separatedBy: "\n").filter { $0.contains("warning: ICC profile dropped") }
                #expect(run.status == 0, "\(input.name) to \(format): \(run.stderr)")
                #expect(warnings.count == 1 && warnings[0].contains(input.says), "\(input.name) to \(format): \(run.stderr)")
                guard run.status == 0, TestSupport.toolExists("exiftool") else { continue }
                let written = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(out).path)
                let path = try #require(written.first.map { dir.appendingPathComponent(out).appendingPathComponent($0).path })
                let tags = try TestSupport.exiftool(path)
                #expect(!tags.keys.contains { $0.hasPrefix("ICC_Profile:") || $0.hasPrefix("ICC-") }, "\(input.name) to \(format) still has a profile")
            }
        }
    }

    @Test func aJPEGThatWouldLeaveAsItCameLosesTheBrokenProfile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.jpeg(profile: [UInt8](repeating: 0, count: 500))
        try Data(source).write(to: dir.appendingPathComponent("z.jpg"))
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1000000", "--to", "jpeg", "-o", "out", "z.jpg"], cwd: dir)
        #expect(run.status == 0 && run.stderr.contains("warning: ICC profile dropped"), "\(run.stderr)")
        let output = try TestSupport.bytes(dir.appendingPathComponent("out/z.jpg").path)
        #expect(output.count < source.count && JPEGMarkers.metadata(in: output).0.icc == nil && JPEGMarkers.metadata(in: output).1.isEmpty)
        // The coefficients are untouched: the pixels decode the same.
        #expect(try JPEGDecoder.decode(output) == JPEGDecoder.decode(source))
    }

    @Test func infoCallsTheProfileInvalid() throws {
        let description = try ImageInspector.inspect(try Self.jpeg(profile: [UInt8](repeating: 0, count: 500)))
        #expect(description.iccProfile == nil)
        #expect(description.colour.contains("invalid") && description.colour.contains("0 bytes"), "\(description.colour)")
        #expect(description.notes.filter { $0.hasPrefix("ICC profile dropped") }.count == 1, "\(description.notes)")
    }

    /// A gray matrix/TRC profile: white point and a gamma-2.2 curve.
    static func grayProfile() -> [UInt8] {
        var bytes = PNGProfileWarningTests.profile(colourSpace: "GRAY")
        bytes.replaceSubrange(12..<16, with: Array("mntr".utf8))
        bytes.replaceSubrange(128..<132, with: HostileFiles.bigEndian(2))
        bytes += Array("wtpt".utf8) + HostileFiles.bigEndian(156) + HostileFiles.bigEndian(20)
        bytes += Array("kTRC".utf8) + HostileFiles.bigEndian(176) + HostileFiles.bigEndian(14)
        bytes += Array("XYZ ".utf8) + [0, 0, 0, 0] + HostileFiles.bigEndian(0xF6D6) + HostileFiles.bigEndian(0x10000) + HostileFiles.bigEndian(0xD32D)
        bytes += Array("curv".utf8) + [0, 0, 0, 0] + HostileFiles.bigEndian(1) + [2, 0x33, 0, 0]   // gamma 2.2 (u8Fixed8)
        bytes.replaceSubrange(0..<4, with: HostileFiles.bigEndian(UInt32(bytes.count)))
        return bytes
    }

    @Test func aGrayProfileOnAGrayJPEGBecomesItsRGBEquivalent() throws {
        let profile = Self.grayProfile()
        #expect(ICCProfileCheck.problem(in: profile, for: [.gray]) == nil)
        let plane = GainMapPlane(width: 16, height: 16, pixels: (0..<256).map { UInt8($0) })
        let gray = try JPEGEncoder().encode(plane, quality: 90, settings: JPEGSettings(), segments: JPEGSegment.iccSegments(profile))
        let decoded = try JPEGDecoder().decode(gray, options: DecodeOptions(maxPixels: .max))
        let rgb = try #require(decoded.metadata.icc)
        #expect(ICCProfileCheck.problem(in: rgb, for: [.rgb]) == nil && decoded.warnings.isEmpty, "\(decoded.warnings)")
        // Under --color srgb both profiles give R=G=B pixels the same values.
        var warnings: [String] = []
        let viaGray = try #require(SRGBConversion.transform(for: profile, bytesPerSample: 1, stride: 3, warnings: &warnings))
        let viaRGB = try #require(SRGBConversion.transform(for: rgb, bytesPerSample: 1, stride: 3, warnings: &warnings))
        let ramp = PixelBuffer(width: 256, height: 1, channels: 3, pixels: (0..<256).flatMap { [UInt8($0), UInt8($0), UInt8($0)] })
        let a = SRGBConversion.converted(ramp, with: viaGray, threads: 1).pixels, b = SRGBConversion.converted(ramp, with: viaRGB, threads: 1).pixels
        #expect(zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 1 })

        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(gray).write(to: dir.appendingPathComponent("g.jpg"))
        let run = try TestSupport.imgprep(["convert", "--to", "png", "-o", "out", "g.jpg"], cwd: dir)
        #expect(run.status == 0 && !run.stderr.contains("warning"), "\(run.stderr)")
        if TestSupport.toolExists("exiftool") {
            let tags = try TestSupport.exiftool(dir.appendingPathComponent("out/g.png").path)
            #expect(tags["ICC-header:ColorSpaceData"] as? String == "RGB ", "\(tags.filter { $0.key.hasPrefix("ICC") })")
        }
    }

    /// The early HP sRGB profile (3144 bytes) that libpng knows as "incorrect" by its checksum, as a
    /// corpus photo carries it; never copied into the repo.
    @Test(.enabled(if: TestSupport.corpus != nil && TestSupport.toolExists("exiftool"), "needs ../shared/corpus and exiftool"))
    func theOldHPSRGBProfileIsKeptInPNG() throws {
        let corpus = try #require(TestSupport.corpus)
        let carrier = corpus.appendingPathComponent("jpeg/immich__craft-beer.jpg").path
        let profile = try #require(JPEGMarkers.metadata(in: try TestSupport.bytes(carrier)).0.icc)
        try #require(profile.count == 3144 && ImageInspector.iccDescription(profile) == "sRGB IEC61966-2.1",
                     "the corpus photo no longer carries the HP profile")
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(try Self.jpeg(profile: profile)).write(to: dir.appendingPathComponent("hp.jpg"))
        let run = try TestSupport.imgprep(["convert", "--to", "png", "-o", "out", "hp.jpg"], cwd: dir)
        #expect(run.status == 0 && !run.stderr.contains("warning"), "\(run.stderr)")
        let png = dir.appendingPathComponent("out/hp.png").path
        #expect(try TestSupport.exiftool(png)["ICC-header:ProfileCMMType"] as? String == "Lino")
        #expect(try PNGDecoder.decode(try TestSupport.bytes(png)).1.icc == profile, "the profile was not kept byte for byte")
    }
}
