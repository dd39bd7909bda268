import Foundation
import Testing
@testable import ImagePrep

/// pillow-heif (its own libheif) in the test venv: an independent decode of HEIF files.
enum HeifReference {
    static let script = TestSupport.packageRoot.appendingPathComponent("scripts/heif_reference.py").path
    static let available = IndependentUltraHDRReader.available
        && (try? TestSupport.run(IndependentUltraHDRReader.python, ["-c", "import pillow_heif"]).status) == 0

    /// PSNR in dB of each output against pillow-heif's decode of `source`.
    static func psnr(_ source: String, _ outputs: [String]) throws -> [String: Double] {
        let run = try TestSupport.run(IndependentUltraHDRReader.python, [script, source] + outputs)
        guard run.status == 0 else { throw ImagePrepError(.io, "heif_reference.py failed: \(run.stderr)") }
        var values: [String: Double] = [:]
        for line in run.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Double(fields[1]) { values[String(fields[0])] = value }
        }
        return values
    }
}

/// Device HEICs decoded to their coded Y'CbCr and encoded from it, against pillow-heif's decode: the planes
/// are what libheif's RGB says (PNG at 45 dB or more), and JPEG, WebP and AVIF written from them are no
/// worse than the same encoders fed libheif's RGB.
@Suite(.enabled(if: TestSupport.corpus != nil && HeifReference.available,
                "no shared corpus or no pillow-heif in .venv-test (make testenv): Y'CbCr path tests against pillow-heif skipped"))
struct YCbCrPathCorpusTests {
    /// Grids of each kind the corpus has: an ICC profile, a 90° irot with and without a profile, edge tiles cut off.
    static let photos = ["immich__IMG_2682.heic", "immich__samsung-one-ui-6.heic", "libvips__heic-orientation-6.heic",
                         "pillow_heif__xiaomi.heic"]

    static func decode(_ file: [UInt8], planes: Bool, threads: Int = 1) throws -> DecodedImage {
        var options = DecodeOptions(maxPixels: 1 << 28, threads: threads)
        options.keepsYCbCr420 = planes
        return try HeifDecoder().decode(file, options: options)
    }

    @Test(arguments: photos)
    func planesMatchAnIndependentDecodeAndNoOutputGetsWorse(_ name: String) throws {
        let source = try #require(TestSupport.corpus).appendingPathComponent("heic/\(name)").path
        let file = try TestSupport.bytes(source)
        let viaPlanes = try Self.decode(file, planes: true), viaRGB = try Self.decode(file, planes: false)
        guard case .ycbcr420(let planes) = viaPlanes.content, case .rgbPlanes = viaRGB.content else {
            Issue.record("\(name): decoded as \(viaPlanes.content) and \(viaRGB.content), not as planes and as RGB")
            return
        }
        #expect((planes.width, planes.height) == (viaRGB.content.width, viaRGB.content.height), "\(name)")
        #expect(viaPlanes.metadata.icc == viaRGB.metadata.icc && viaPlanes.metadata.exif == viaRGB.metadata.exif, "\(name)")

        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ bytes: [UInt8], _ file: String) throws -> String {
            let path = dir.appendingPathComponent(file).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let png = try write(PNGEncoder().encode(.rgb(planes.rgb()), quality: 100, metadata: ImageMetadata()), "planes.png")
        var encoders: [(String, any ImageEncoding, Int)] = [("jpg", JPEGEncoder(), 85), ("webp", WebPEncoder(), 80)]
        if name == Self.photos[0] { encoders.append(("avif", HeifEncoder(codec: .av1), 50)) }   // seconds per encode: one photo
        var pairs: [(format: String, planes: String, rgb: String, bytes: (planes: Int, rgb: Int))] = []
        for (suffix, encoder, quality) in encoders {
            let fromPlanes = try encoder.encode(viaPlanes.content.prepared(for: encoder), quality: quality, metadata: ImageMetadata())
            let fromRGB = try encoder.encode(viaRGB.content, quality: quality, metadata: ImageMetadata())
            pairs.append((suffix, try write(fromPlanes, "planes.\(suffix)"), try write(fromRGB, "rgb.\(suffix)"), (fromPlanes.count, fromRGB.count)))
        }
        let scores = try HeifReference.psnr(source, [png] + pairs.flatMap { [$0.planes, $0.rgb] })
        let pngScore = try #require(scores[png], "\(scores)")
        #expect(pngScore >= 45, "\(name): the planes as RGB are \(pngScore) dB from pillow-heif's decode")
        for pair in pairs {
            let fromPlanes = try #require(scores[pair.planes]), fromRGB = try #require(scores[pair.rgb])
            // A hundredth of a dB either way is the encoder's own choices on slightly different input. libwebp
            // averages chroma from RGB in its own way, a few hundredths higher on some photos but in more bytes:
            // a smaller file may score up to 0.05 dB lower (a 1% smaller WebP is worth about 0.1 dB).
            let noWorse = fromPlanes >= fromRGB - 0.02 || (pair.bytes.planes < pair.bytes.rgb && fromPlanes >= fromRGB - 0.05)
            #expect(noWorse, "\(name) \(pair.format): \(fromPlanes) dB in \(pair.bytes.planes) bytes from planes, \(fromRGB) dB in \(pair.bytes.rgb) from RGB")
        }
    }

    /// Tiles decoded on one thread or on several, and the whole conversion, give the same bytes.
    @Test func parallelTilesGiveTheSameBytes() throws {
        let source = try #require(TestSupport.corpus).appendingPathComponent("heic/\(Self.photos[2])").path
        let file = try TestSupport.bytes(source)
        guard case .ycbcr420(let one) = try Self.decode(file, planes: true, threads: 1).content,
              case .ycbcr420(let two) = try Self.decode(file, planes: true, threads: 3).content else {
            Issue.record("not decoded as planes")
            return
        }
        #expect(one.rgb() == two.rgb())
        var settings = ConversionSettings()
        settings.format = .jpeg
        let single = try ImagePipeline.prepare(file, settings: settings, scheduling: Scheduling(threads: 1))
        let parallel = try ImagePipeline.prepare(file, settings: settings, scheduling: Scheduling(threads: 2))
        #expect(single.bytes == parallel.bytes, "\(single.bytes.count) and \(parallel.bytes.count) bytes")
    }
}

/// The layout conversions and chroma siting, on planes made here.
struct YCbCrLayoutTests {
    /// Smooth planes of `width` x `height`: a luma ramp and two chroma ramps.
    static func planes(width: Int, height: Int, layout: YCbCrLayout = .jfif,
                       chroma: (Int, Int) -> (UInt8, UInt8) = { x, y in (UInt8(100 + x % 60), UInt8(160 - y % 50)) }) -> YCbCr420Image {
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaCount = width * height, chromaCount = chromaWidth * chromaHeight
        let storage = PlaneStorage(count: YCbCr420Image.packedCount(width: width, height: height))
        for y in 0..<height { for x in 0..<width { storage.pointer[y * width + x] = UInt8(30 + (x + y) % 190) } }
        for y in 0..<chromaHeight {
            for x in 0..<chromaWidth {
                (storage.pointer[lumaCount + y * chromaWidth + x], storage.pointer[lumaCount + chromaCount + y * chromaWidth + x]) = chroma(x, y)
            }
        }
        return YCbCr420Image(packed: storage.pointer, width: width, height: height, layout: layout, owner: storage)
    }

    /// Converted to BT.709 limited range and back to RGB, a picture looks as it did (the matrix is right, and
    /// so is which way it goes); grey stays grey, and white and black land on limited range's own values.
    @Test func anotherMatrixAndRangeShowTheSamePicture() {
        let source = Self.planes(width: 96, height: 64)
        let target = YCbCrLayout(matrix: .bt709, range: .limited, siting: .centred)
        let converted = source.converted(to: target)
        #expect(converted.layout == target)
        let psnr = TestSupport.psnr(source.rgb(), converted.rgb())
        #expect(psnr > 40, "\(psnr) dB")
        // Changing nothing but the range touches no chroma and maps luma 0 and 255 to 16 and 235.
        let grey = Self.planes(width: 4, height: 2) { _, _ in (128, 128) }
        let limited = grey.converted(to: YCbCrLayout(matrix: .bt601, range: .limited, siting: .centred))
        for x in 0..<4 {
            let luma = Double(grey.luma.row(0)[x])
            let expected = Int((16 + luma * 219 / 255).rounded())
            #expect(Int(limited.luma.row(0)[x]) == expected)
        }
        #expect(limited.cb.row(0)[0] == 128 && limited.cr.row(0)[1] == 128)
        #expect(source.converted(to: .jfif).planes === source.planes, "the same layout is not copied")
    }

    /// Chroma sitting on the left column is half a luma pixel left of where centred chroma would be: resampled
    /// to half size, a one-sample chroma line lands an eighth of an output chroma sample further left.
    @Test func resamplingHonoursChromaSiting() throws {
        func centroid(_ siting: ChromaSiting) -> Double {
            let line = Self.planes(width: 64, height: 8, layout: YCbCrLayout(matrix: .bt601, range: .full, siting: siting)) { x, _ in
                (x == 10 ? 228 : 128, 128)
            }
            let half = line.resized(width: 32, height: 4, threads: 1)
            #expect(half.layout.siting == .centred)
            var weighted = 0.0, total = 0.0
            for x in 0..<16 {
                let excess = Double(half.cb.row(1)[x]) - 128
                weighted += excess * Double(x)
                total += excess
            }
            return weighted / total
        }
        let shift = centroid(.left) - centroid(.centred)
        #expect(abs(shift + 0.125) < 0.02, "left-sited chroma moved \(shift) output samples")
    }

    /// A turn moves where chroma sits with the picture: the left column of a turned-right picture is its top row.
    @Test func sitingTurnsWithThePicture() {
        #expect(ChromaSiting.left.oriented(.right) == ChromaSiting(x: 0, y: -0.5))
        #expect(ChromaSiting.left.oriented(.left) == ChromaSiting(x: 0, y: 0.5))
        #expect(ChromaSiting.left.oriented(.upMirrored) == ChromaSiting(x: 0.5, y: 0))
        let turned = Self.planes(width: 8, height: 4, layout: YCbCrLayout(matrix: .bt601, range: .full, siting: .left)).oriented(.right)
        #expect(turned?.layout.siting == ChromaSiting(x: 0, y: -0.5) && turned?.width == 4)
    }
}
