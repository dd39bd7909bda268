import Foundation
import Testing
@testable import ImagePrep

@Suite(.enabled(if: PlaceholderReaders.python != nil, "no .venv-test with PyPI thumbhash and blurhash (make testenv): placeholder tests skipped"))
struct PlaceholderTests {
    @Test("ThumbHash: PyPI's decoder reads back the picture's average colour and aspect",
          arguments: ["ramp 300x200", "portrait 60x180", "halves 120x80", "1x1", "square 64x64"])
    func thumbHashDecodes(_ name: String) throws {
        let picture = try Pictures.named(name)
        let placeholder = try #require(try Placeholders.make(.thumbhash, from: picture))
        #expect(placeholder.kind == .thumbhash)
        let decoded = try PlaceholderReaders.run("thumbhash-decode", placeholder.value)
        let average = try #require(decoded["average"] as? [Double])
        let mean = Pictures.mean(picture)
        for k in 0..<3 { #expect(abs(average[k] - mean[k]) < 0.06, "\(name): channel \(k) \(average[k]) vs \(mean[k])") }
        #expect(average[3] == 1, "\(name): opaque")
        let aspect = try #require(decoded["aspect"] as? Double)
        let actual = Double(picture.width) / Double(picture.height)
        // ThumbHash keeps the aspect in steps of 1/7 of the long edge.
        #expect(abs(aspect - actual) / actual < 0.2, "\(name): aspect \(aspect) vs \(actual)")
    }

    @Test("ThumbHash: an extreme strip keeps its orientation, at the widest aspect ThumbHash has (7:1)")
    func thumbHashStrip() throws {
        let strip = Pictures.make(3000, 3) { x, _ in (UInt8(x % 256), 80, 80, 255) }
        let placeholder = try #require(try Placeholders.make(.thumbhash, from: strip))
        let decoded = try PlaceholderReaders.run("thumbhash-decode", placeholder.value)
        #expect(decoded["aspect"] as? Double == 7)
        let tall = try #require(try Placeholders.make(.thumbhash, from: Pictures.make(2, 900) { _, _ in (9, 9, 9, 255) }))
        #expect(try PlaceholderReaders.run("thumbhash-decode", tall.value)["aspect"] as? Double == 1.0 / 7)
    }

    @Test("ThumbHash keeps alpha: transparent pixels' hidden colour does not count")
    func thumbHashAlpha() throws {
        // Left half transparent with a green the eye never sees, right half opaque blue.
        let picture = Pictures.make(80, 80, alpha: true) { x, _ in x < 40 ? (0, 255, 0, 0) : (20, 40, 230, 255) }
        let placeholder = try #require(try Placeholders.make(.thumbhash, from: picture))
        let average = try #require(try PlaceholderReaders.run("thumbhash-decode", placeholder.value)["average"] as? [Double])
        #expect(abs(average[3] - 0.5) < 0.07, "alpha \(average[3])")
        #expect(abs(average[0] - 20.0 / 255) < 0.06 && abs(average[1] - 40.0 / 255) < 0.06 && abs(average[2] - 230.0 / 255) < 0.06,
                "colour \(average)")
    }

    @Test("ThumbHash: ours and PyPI's encoder give the same bytes for the same pixels",
          arguments: ["ramp 300x200", "portrait 60x180", "halves 120x80", "noise 97x61"])
    func thumbHashMatchesPyPI(_ name: String) throws {
        let picture = try Pictures.named(name)
        let rgba = try #require(ThumbHash.reduced(picture))
        let ours = Data(ThumbHash.encode(width: rgba.width, height: rgba.height, rgba: rgba.pixels)).base64EncodedString()
        let theirs = try PlaceholderReaders.run("thumbhash-encode", "", pixels: rgba)["hash"] as? String
        #expect(ours == theirs, "\(name)")
    }

    @Test("BlurHash: 4x3 components; PyPI's decoder paints the picture's colours where they are",
          arguments: ["ramp 300x200", "halves 120x80", "portrait 60x180", "1x1", "5000x2", "20x2000"])
    func blurHashDecodes(_ name: String) throws {
        let picture = try Pictures.named(name)
        let placeholder = try #require(try Placeholders.make(.blurhash, from: picture))
        #expect(placeholder.kind == .blurhash && placeholder.value.count == 4 + 2 * 4 * 3)
        let decoded = try PlaceholderReaders.run("blurhash-decode", placeholder.value)
        #expect(decoded["components"] as? [Int] == [4, 3])
        let pixels = try #require(decoded["pixels"] as? [Int]).map(UInt8.init)
        let image = PixelBuffer(width: 32, height: 24, channels: 3, pixels: pixels)
        let mean: [Double] = Pictures.mean(image), expected: [Double] = Pictures.mean(picture)
        for k in 0..<3 {
            let difference: Double = abs(mean[k] - expected[k])
            #expect(difference < 0.06, "\(name): channel \(k) \(mean[k]) vs \(expected[k])")
        }
        if name.hasPrefix("halves") {
            // Red on the left, blue on the right, as in the picture.
            let left = pixels[3 * (12 * 32 + 4)], right = pixels[3 * (12 * 32 + 27)]
            let leftBlue = pixels[3 * (12 * 32 + 4) + 2], rightBlue = pixels[3 * (12 * 32 + 27) + 2]
            #expect(left > 150 && right < 100 && leftBlue < 100 && rightBlue > 150, "\(left) \(leftBlue) | \(right) \(rightBlue)")
        }
    }

    @Test("BlurHash: ours and PyPI's encoder give the same text for the same pixels",
          arguments: ["ramp 300x200", "halves 120x80", "portrait 60x180", "noise 97x61"])
    func blurHashMatchesPyPI(_ name: String) throws {
        let picture = try Pictures.named(name)
        let rgb = try #require(BlurHash.reduced(picture))
        let ours = BlurHash.encode(width: rgb.width, height: rgb.height, rgb: rgb.pixels)
        let theirs = try PlaceholderReaders.run("blurhash-encode", "", pixels: rgb)["hash"] as? String
        #expect(ours == theirs, "\(name)")
    }
}

/// Corpus photos, reduced to 256 px by vipsthumbnail (upright, sRGB), as the pipeline hands them over.
@Suite(.enabled(if: PlaceholderReaders.python != nil && TestSupport.corpus != nil && TestSupport.toolExists("vipsthumbnail"),
                "no .venv-test, no shared corpus or no vipsthumbnail: placeholders of corpus photos skipped"))
struct CorpusPlaceholderTests {
    @Test("ThumbHash and BlurHash of photos: PyPI reads back their colour (and ThumbHash their aspect); same bytes as PyPI's encoders",
          arguments: ["heic/libheif__example.heic", "jpeg/nuke__image-p3.jpg", "jpeg/libvips__sample.jpg", "avif/libavif__kodim03_yuv420_8bpc.avif",
                      "heic/libheif__with-alpha-512x512.heic"])
    func photo(_ photo: String) throws {
        let corpus = try #require(TestSupport.corpus)
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("p.png")
        let run = try TestSupport.run("vipsthumbnail", [corpus.appendingPathComponent(photo).path, "-s", "256", "-o", output.path])
        try #require(run.status == 0, "\(run.stderr)")
        let picture = try TestSupport.decode(output.path)

        let thumb = try #require(try Placeholders.make(.thumbhash, from: picture))
        let decoded = try PlaceholderReaders.run("thumbhash-decode", thumb.value)
        let average = try #require(decoded["average"] as? [Double]), aspect = try #require(decoded["aspect"] as? Double)
        let actual = Double(picture.width) / Double(picture.height)
        #expect(abs(aspect - actual) / actual < 0.2, "\(photo): aspect \(aspect) vs \(actual)")
        let blur = try #require(try Placeholders.make(.blurhash, from: picture))
        let blurred = try #require(try PlaceholderReaders.run("blurhash-decode", blur.value)["pixels"] as? [Int]).map(UInt8.init)
        let blurMean = Pictures.mean(PixelBuffer(width: 32, height: 24, channels: 3, pixels: blurred))
        if picture.hasAlpha {
            let alphaMean = (0..<(picture.width * picture.height)).reduce(0.0) { $0 + Double(picture.pixels[4 * $1 + 3]) } / Double(picture.width * picture.height) / 255
            #expect(abs(average[3] - alphaMean) < 0.07, "\(photo): alpha \(average[3]) vs \(alphaMean)")
        } else {
            let mean = Pictures.mean(picture)
            for k in 0..<3 {
                #expect(abs(average[k] - mean[k]) < 0.06, "\(photo): ThumbHash channel \(k) \(average[k]) vs \(mean[k])")
                #expect(abs(blurMean[k] - mean[k]) < 0.08, "\(photo): BlurHash channel \(k) \(blurMean[k]) vs \(mean[k])")
            }
            // PyPI's ThumbHash encoder mishandles alpha (its a_dc is a tuple), so bytes are compared on opaque photos.
            let rgba = try #require(ThumbHash.reduced(picture))
            let theirs = try PlaceholderReaders.run("thumbhash-encode", "", pixels: rgba)["hash"] as? String
            #expect(Data(ThumbHash.encode(width: rgba.width, height: rgba.height, rgba: rgba.pixels)).base64EncodedString() == theirs, "\(photo)")
        }
        let rgb = try #require(BlurHash.reduced(picture))
        let theirBlur = try PlaceholderReaders.run("blurhash-encode", "", pixels: rgb)["hash"] as? String
        #expect(BlurHash.encode(width: rgb.width, height: rgb.height, rgb: rgb.pixels) == theirBlur, "\(photo)")
    }
}

struct LQIPTests {
    /// The data URI's WebP decoded by dwebp: its size and mean colour.
    static func dwebp(_ uri: String) throws -> (width: Int, height: Int, mean: [Double]) {
        let prefix = "data:image/webp;base64,"
        #expect(uri.hasPrefix(prefix))
        let webp = try #require(Data(base64Encoded: String(uri.dropFirst(prefix.count))))
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, output) = (directory.appendingPathComponent("p.webp"), directory.appendingPathComponent("p.ppm"))
        try webp.write(to: input)
        let run = try TestSupport.run("dwebp", [input.path, "-ppm", "-o", output.path])
        try #require(run.status == 0, "dwebp: \(run.stderr)")
        let ppm = try TestSupport.bytes(output.path)
        // "P6\nW H\n255\n" then RGB.
        let header = ppm.prefix(40).split(separator: 0x0A, maxSplits: 3, omittingEmptySubsequences: false)
        let size = String(decoding: header[1], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        try #require(size.count == 2)
        let body = Array(ppm.suffix(size[0] * size[1] * 3))
        return (size[0], size[1], Pictures.mean(PixelBuffer(width: size[0], height: size[1], channels: 3, pixels: body)))
    }

    @Test("LQIP: a WebP data URI about 16 px wide that dwebp decodes to the picture's colours",
          .enabled(if: TestSupport.toolExists("dwebp"), "no dwebp"),
          arguments: [("ramp 300x200", 16, 11), ("10x5", 10, 5), ("20x2000", 1, 64), ("blue 1x1", 1, 1), ("5000x2", 16, 1)])
    func lqip(_ name: String, _ width: Int, _ height: Int) throws {
        let picture = try Pictures.named(name)
        let placeholder = try #require(try Placeholders.make(.lqip, from: picture))
        #expect(placeholder.kind == .lqip)
        let decoded = try Self.dwebp(placeholder.value)
        #expect((decoded.width, decoded.height) == (width, height))
        let mean = Pictures.mean(picture)
        for k in 0..<3 { #expect(abs(decoded.mean[k] - mean[k]) < 0.05, "channel \(k): \(decoded.mean[k]) vs \(mean[k])") }
        #expect(placeholder.value.count < 1000, "\(placeholder.value.count) characters")
    }

    @Test("No placeholder for .none; an empty or inconsistent picture is an error, not a trap")
    func emptyPictures() throws {
        #expect(try Placeholders.make(.none, from: Pictures.ramp) == nil)
        let empty = PixelBuffer(width: 0, height: 0, channels: 3, pixels: [])
        var lying = Pictures.ramp
        lying.width = 5000   // pixels no longer match
        for kind in [PlaceholderKind.thumbhash, .blurhash, .lqip] {
            #expect(throws: ImagePrepError.self) { try Placeholders.make(kind, from: empty) }
            #expect(throws: ImagePrepError.self) { try Placeholders.make(kind, from: lying) }
        }
    }
}
