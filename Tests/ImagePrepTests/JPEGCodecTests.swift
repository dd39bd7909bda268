import Foundation
import Testing
@testable import ImagePrep

/// Shared by the JPEG and PNG codec tests.
enum CodecTestSupport {
    /// A smooth colour gradient with a little texture, like a photo's sky.
    static func gradient(width: Int, height: Int, channels: Int = 3) -> PixelBuffer {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                pixels += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)),
                           UInt8((x + y) * 127 / max(width + height - 2, 1) + (x * y) % 3)]
                if channels == 4 { pixels.append(UInt8((x * 7 + y * 13) % 256)) }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let squares = zip(a.pixels, b.pixels).reduce(0.0) { sum, pair in
            let d = Double(pair.0) - Double(pair.1)
            return sum + d * d
        }
        let mse = squares / Double(a.pixels.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    static func toolExists(_ name: String, versionFlag: String = "-version") -> Bool {
        (try? run(name, [versionFlag]).status) == 0
    }

    /// Runs a command-line tool found on PATH; returns its exit status and standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let result = try TestSupport.capture(tool, arguments)
        return (result.status, Data(result.output))
    }

    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("imgprep-\(UUID().uuidString)-\(name)")
    }

    /// A little-endian TIFF with one IFD0 entry: Orientation (0x0112, SHORT) = `orientation`.
    static func exifWithOrientation(_ orientation: UInt8) -> [UInt8] {
        Array("II".utf8) + [42, 0, 8, 0, 0, 0]   // header, IFD0 at offset 8
            + [1, 0]                             // one entry
            + [0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0]
            + [0, 0, 0, 0]                       // no next IFD
    }

    static func xmpPacket(rating: Int) -> [UInt8] {
        Array("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(rating)"/>
        </rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """.utf8)
    }

    /// A complete, valid ICC profile (libpng checks them): the Display P3 matrix/TRC profile imgprep
    /// writes for nclx sources, so no file from elsewhere is needed.
    static func realICCProfile() throws -> [UInt8] {
        let p3 = NCLXColor(primaries: 12, transfer: 13, matrix: 1, fullRange: true)
        return try #require(ColorProfileSynthesizer.profile(for: p3).icc)
    }

    /// A sound profile (ICCProfileCheck keeps it) of `size` bytes: the compact sRGB one with `tail`'s
    /// bytes after its tags, and its header's size field saying so.
    static func profile(size: Int, tail: (Int) -> UInt8 = { _ in 0 }) -> [UInt8] {
        precondition(size >= SRGBProfile.bytes.count && size % 4 == 0, "profile size")
        var icc = SRGBProfile.bytes + (SRGBProfile.bytes.count..<size).map(tail)
        icc.replaceSubrange(0..<4, with: (0..<4).map { UInt8(truncatingIfNeeded: size >> (24 - 8 * $0)) })
        return icc
    }
}

@Suite struct JPEGCodecTests {
    let encoder = JPEGEncoder()

    @Test func highQualityRoundTripKeepsSizeAndDetail() throws {
        let image = CodecTestSupport.gradient(width: 301, height: 203)
        for settings in [JPEGSettings(), JPEGSettings(subsampling: .s444, optimizeHuffman: false),
                         JPEGSettings(subsampling: .s422, progressive: true)] {
            let jpeg = try encoder.encode(image, quality: 95, settings: settings)
            let decoded = try JPEGDecoder.decode(jpeg)
            #expect(decoded.width == 301 && decoded.height == 203 && decoded.channels == 3)
            #expect(CodecTestSupport.psnr(image, decoded) > 40, "settings \(settings)")
            let header = try JPEGDecoder.dimensions(of: jpeg)
            #expect(header.width == 301 && header.height == 203)
        }
    }

    @Test func scaledDecodeShrinksByTheDenominator() throws {
        let jpeg = try encoder.encode(CodecTestSupport.gradient(width: 301, height: 203), quality: 80,
                                      settings: JPEGSettings())
        let quarter = try JPEGDecoder.decode(jpeg, scaleDenominator: 4)
        #expect(quarter.width == 76 && quarter.height == 51)   // rounded up
    }

    /// A picture turned by 90° and encoded with transposed tables is the turned twin of the unturned
    /// picture encoded with the standard ones: same pixels (transposed) and about the same size.
    @Test func transposedTablesEncodeTheTurnedTwin() throws {
        let width = 256, height = 192
        func texture(_ x: Int, _ y: Int) -> [UInt8] {
            [UInt8((x * 5 + (x * y) % 23 * 4) % 256), UInt8((y * 3 + x % 7 * 20) % 256), UInt8((x + y * 2 + (x ^ y) % 13 * 9) % 256)]
        }
        let picture = PixelBuffer(width: width, height: height, channels: 3,
                                  pixels: (0..<height).flatMap { y in (0..<width).flatMap { x in texture(x, y) } })
        let turned = PixelBuffer(width: height, height: width, channels: 3,
                                 pixels: (0..<width).flatMap { y in (0..<height).flatMap { x in texture(y, x) } })
        let standard = try encoder.encode(picture, quality: 86, settings: JPEGSettings())
        var transposed = JPEGSettings()
        transposed.transposedQuantization = true
        let twin = try encoder.encode(turned, quality: 86, settings: transposed)
        let plainTurned = try encoder.encode(turned, quality: 86, settings: JPEGSettings())
        #expect(twin != plainTurned)
        #expect(abs(twin.count - standard.count) * 100 <= standard.count, "\(twin.count) vs \(standard.count)")

        // Turned back, the twin decodes to nearly the standard encode's pixels (the forward DCT rounds rows
        // and columns differently, so a few coefficients land one step apart); the plain encode does not.
        func unturned(_ jpeg: [UInt8]) throws -> PixelBuffer {
            let image = try JPEGDecoder.decode(jpeg)
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 { pixels[(y * width + x) * 3 + c] = image.pixels[(x * height + y) * 3 + c] }
                }
            }
            return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
        }
        let reference = try JPEGDecoder.decode(standard)
        let twinPSNR = CodecTestSupport.psnr(reference, try unturned(twin))
        let plainPSNR = CodecTestSupport.psnr(reference, try unturned(plainTurned))
        #expect(twinPSNR > 38 && twinPSNR > plainPSNR + 5, "twin \(twinPSNR) dB, plain \(plainPSNR) dB")
    }

    @Test func optimizedHuffmanTablesMakeSmallerFiles() throws {
        let image = CodecTestSupport.gradient(width: 256, height: 256)
        let plain = try encoder.encode(image, quality: 85, settings: JPEGSettings(optimizeHuffman: false))
        let optimized = try encoder.encode(image, quality: 85, settings: JPEGSettings(optimizeHuffman: true))
        #expect(optimized.count < plain.count)
    }

    @Test(.enabled(if: CodecTestSupport.toolExists("exiftool", versionFlag: "-ver"), "exiftool is not installed"))
    func exiftoolReadsBackEmbeddedMetadata() throws {
        let icc = try CodecTestSupport.realICCProfile()
        try #require(icc.count > 128)
        let metadata = ImageMetadata(exif: CodecTestSupport.exifWithOrientation(6),
                                     xmp: CodecTestSupport.xmpPacket(rating: 4), icc: icc)
        let jpeg = try encoder.encode(CodecTestSupport.gradient(width: 64, height: 48), quality: 90,
                                      settings: JPEGSettings(), segments: JPEGSegment.segments(for: metadata))

        let file = CodecTestSupport.temporaryFile("meta.jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(jpeg).write(to: file)
        let result = try CodecTestSupport.run("exiftool", ["-j", "-n", "-G1", "-a", file.path])
        let json = try #require(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        let tags = try #require(json.first)
        #expect(tags["IFD0:Orientation"] as? Int == 6)
        #expect(tags["XMP-xmp:Rating"] as? Int == 4)
        #expect(tags["ICC-header:ProfileClass"] as? String == "mntr")
        #expect((tags["ICC_Profile:ProfileDescription"] as? String)?.contains("P3") == true)
        #expect(tags["ExifTool:Warning"] == nil)

        // And our own reader gets every byte back.
        let (read, warnings) = JPEGMarkers.metadata(in: jpeg)
        #expect(read == metadata)
        #expect(warnings.isEmpty)
    }

    @Test func largeICCProfileIsSplitAndReassembledByteForByte() throws {
        let profile = CodecTestSupport.profile(size: 200_000) { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let segments = JPEGSegment.segments(for: ImageMetadata(icc: profile))
        #expect(segments.count == 4)
        #expect(segments.allSatisfy { $0.marker == 0xE2 && $0.payload.count <= JPEGSegment.maxPayload })
        let jpeg = try encoder.encode(CodecTestSupport.gradient(width: 16, height: 16), quality: 80,
                                      settings: JPEGSettings(), segments: segments)
        let (read, warnings) = JPEGMarkers.metadata(in: jpeg)
        #expect(read.icc == profile)
        #expect(warnings.isEmpty)

        // Without its second chunk the profile must be dropped, not returned short.
        let incomplete = try encoder.encode(CodecTestSupport.gradient(width: 16, height: 16), quality: 80,
                                            settings: JPEGSettings(), segments: segments.enumerated().filter { $0.offset != 1 }.map(\.element))
        let (damaged, damageWarnings) = JPEGMarkers.metadata(in: incomplete)
        #expect(damaged.icc == nil)
        #expect(damageWarnings.contains { $0.contains("ICC profile dropped") })
    }

    @Test func oversizedBlocksAreLeftOutOfTheSegments() {
        let big = [UInt8](repeating: 0x20, count: 70_000)
        let segments = JPEGSegment.segments(for: ImageMetadata(exif: big, xmp: big))
        #expect(segments.isEmpty)
    }

    @Test func truncatedJPEGIsAnErrorNotGreyPixels() throws {
        let jpeg = try encoder.encode(CodecTestSupport.gradient(width: 128, height: 128), quality: 90,
                                      settings: JPEGSettings())
        let half = Array(jpeg.prefix(jpeg.count / 2))
        #expect {
            try JPEGDecoder.decode(half)
        } throws: { error in
            (error as? ImagePrepError)?.description.contains("Premature end") == true
        }
        // A progressive file cut between scans has no damaged segment, only missing scans.
        let progressive = try encoder.encode(CodecTestSupport.gradient(width: 128, height: 128), quality: 90,
                                             settings: JPEGSettings(progressive: true))
        let secondScan = try #require(Self.offsetsOfSOS(in: progressive).dropFirst().first)
        #expect(throws: ImagePrepError.self) { try JPEGDecoder.decode(Array(progressive.prefix(secondScan))) }
    }

    @Test func missingEOIAloneStillDecodes() throws {
        for settings in [JPEGSettings(), JPEGSettings(progressive: true)] {
            let jpeg = try encoder.encode(CodecTestSupport.gradient(width: 64, height: 64), quality: 90,
                                          settings: settings)
            #expect(jpeg.suffix(2) == [0xFF, 0xD9])
            let decoded = try JPEGDecoder.decode(Array(jpeg.dropLast(2)))
            #expect(decoded == (try JPEGDecoder.decode(jpeg)))
        }
    }

    @Test func garbageIsAnError() {
        #expect(throws: ImagePrepError.self) { try JPEGDecoder.decode(Array("not a JPEG at all".utf8)) }
        #expect(throws: ImagePrepError.self) { try JPEGDecoder.decode([]) }
        #expect(throws: ImagePrepError.self) { try JPEGDecoder.dimensions(of: [0xFF, 0xD8, 0xFF]) }
    }

    @Test func randomMutationsNeverCrash() throws {
        let metadata = ImageMetadata(exif: CodecTestSupport.exifWithOrientation(3), icc: [UInt8](repeating: 7, count: 300))
        let jpeg = try encoder.encode(CodecTestSupport.gradient(width: 24, height: 24), quality: 75,
                                      settings: JPEGSettings(), segments: JPEGSegment.segments(for: metadata))
        var random = SplitMix64(seed: 42)
        for _ in 0..<1000 {
            var mutant = jpeg
            for _ in 0...random.next(below: 4) {
                mutant[random.next(below: mutant.count)] = UInt8(truncatingIfNeeded: random.next())
            }
            if random.next(below: 4) == 0 { mutant.removeLast(random.next(below: mutant.count)) }
            _ = try? JPEGDecoder.decode(mutant)
            _ = JPEGMarkers.metadata(in: mutant)
        }
        for length in 0..<300 {   // garbage after a valid SOI
            let garbage = [0xFF, 0xD8] + (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = JPEGMarkers.metadata(in: garbage)
        }
    }

    static func offsetsOfSOS(in jpeg: [UInt8]) -> [Int] {
        jpeg.indices.dropLast().filter { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }
    }
}

@Suite struct JPEGQualityEstimateTests {
    /// The search's first guess for JPEG inputs rests on reading libjpeg's tables back.
    @Test(arguments: [40, 75, 85, 95])
    func estimatesTheQualityLibjpegEncodedWith(quality: Int) throws {
        var pixels: [UInt8] = []
        for i in 0..<(64 * 48) {
            pixels += [UInt8(i % 64 * 4), UInt8(i / 64 * 5), UInt8(i * 7 % 256)]
        }
        let image = PixelBuffer(width: 64, height: 48, channels: 3, pixels: pixels)
        let jpeg = try JPEGEncoder().encode(image, quality: quality, settings: JPEGSettings())
        #expect(JPEGMarkers.estimatedQuality(of: jpeg) == quality)
    }
}
