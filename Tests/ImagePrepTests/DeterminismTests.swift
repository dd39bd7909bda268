import Foundation
import Testing
@testable import ImagePrep

/// Same input, same bytes: the threads a picture gets (from the cores and the files in flight), -j, and
/// whether a file runs alone or in a batch never change what is written, budget searches included.
@Suite struct DeterminismTests {
    /// A photo-like picture (smooth light, edges, fine texture) large enough for the budget search to
    /// probe a mosaic, written as PNG: `variant` changes a few pixels so that batches hold distinct files.
    static func photoLikePNG(width: Int = 1000, height: Int = 750, variant: Int = 0) throws -> [UInt8] {
        var generator = SplitMix64(seed: 42)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let light = 0.5 + 0.35 * sin(Double(x) / 190) * cos(Double(y) / 150)
                let edge = (x / 97 + y / 83) % 2 == 0 ? 0.12 : -0.12
                let grain = Double(generator.next(below: 40)) / 255 - 0.08
                for c in 0..<3 {
                    let tint = [1.0, 0.85, 0.7][c]
                    let value = (light + edge) * tint + grain
                    pixels[(y * width + x) * 3 + c] = UInt8(max(0, min(255, value * 255)))
                }
            }
        }
        pixels[0] = UInt8(truncatingIfNeeded: variant)
        let image = PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
        return try PNGEncoder().encode(.rgb(image), quality: 0, metadata: ImageMetadata())
    }

    static let formats: [OutputFormat] = [.jpeg, .webp, .avif, .heic]

    /// The encoders' own threads (libwebp's, x265's pool), resizing and colour conversion in bands, and
    /// AV1 budget trials side by side: one, two and five threads give the same bytes, with and without a
    /// budget.
    @Test(arguments: formats)
    func threadsPerPictureNeverChangeTheBytes(_ format: OutputFormat) throws {
        let file = try Self.photoLikePNG()
        for budget in [nil, 40_000] as [Int?] {
            var settings = ConversionSettings()
            settings.format = format
            settings.quality = 90
            settings.maxDimension = 900   // still large enough to be probed (ProbeMosaic)
            settings.color = .srgb
            settings.budget = budget.map { ByteBudget(maxBytes: $0) }
            let one = try ImagePipeline.prepare(file, settings: settings, scheduling: Scheduling(threads: 1))
            for threads in [2, 4] {
                let other = try ImagePipeline.prepare(file, settings: settings, scheduling: Scheduling(threads: threads))
                let same = other.bytes == one.bytes
                #expect(same, "\(format) budget \(budget ?? 0): \(threads) threads wrote \(other.bytes.count) bytes at quality \(other.quality ?? 0), one thread \(one.bytes.count) at \(one.quality ?? 0)")
            }
        }
    }

    /// The command line: the same files at -j 1 and -j 4, one at a time and in a batch, with the threads
    /// per picture forced to 1 and to 4, write the same bytes (budget searches in JPEG, WebP, AVIF and JPEG XL).
    @Test(arguments: [("jpeg", "80KB"), ("webp", "40KB"), ("avif", "25KB"), ("jxl", "40KB")])
    func theSameFilesGiveTheSameBytesAloneOrInABatchAtAnyJobs(_ format: String, _ budget: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try (0..<3).map { index -> String in
            let path = dir.appendingPathComponent("photo\(index).png").path
            try Data(Self.photoLikePNG(variant: index)).write(to: URL(fileURLWithPath: path))
            return path
        }
        func run(_ name: String, jobs: Int, threads: Int, files: [String]) throws -> [String: Data] {
            let out = dir.appendingPathComponent(name).path
            let result = try TestSupport.imgprep(["compress", "--to", format, "--max-bytes", budget, "-j", "\(jobs)", "-o", out] + files,
                                                 environment: TestSupport.environment(adding: ["IMGPREP_THREADS_PER_IMAGE": "\(threads)"]))
            #expect(result.status == 0, "\(result.stderr)")
            var outputs: [String: Data] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] {
                outputs[name] = FileManager.default.contents(atPath: out + "/" + name)
            }
            return outputs
        }
        let batchOne = try run("batch-j1", jobs: 1, threads: 1, files: inputs)
        #expect(batchOne.count == 3)
        let batchFour = try run("batch-j4", jobs: 4, threads: 4, files: inputs)
        let alone = try run("alone", jobs: 1, threads: 3, files: [inputs[1]])
        #expect(batchFour == batchOne, "\(format): -j 4 with 4 threads per picture differs from -j 1")
        let name = try #require(alone.keys.first)
        #expect(alone[name] == batchOne[name], "\(format): alone differs from in a batch")
    }

    /// `--quality auto` (its trials are one after another) and `--to auto` (its formats too): the same
    /// bytes at -j 1 and -j 4, with one and four threads per picture.
    @Test(arguments: [["--to", "jpeg", "--quality", "auto"], ["--to", "avif", "--quality", "auto", "--target-score", "75"],
                      ["--to", "auto", "--quality", "auto"], ["--to", "auto", "--max-bytes", "30KB"]])
    func searchesForAScoreOrAFormatGiveTheSameBytesAtAnyJobs(_ options: [String]) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try (0..<3).map { index -> String in
            let path = dir.appendingPathComponent("photo\(index).png").path
            try Data(Self.photoLikePNG(width: 400, height: 300, variant: index)).write(to: URL(fileURLWithPath: path))
            return path
        }
        func run(_ name: String, jobs: Int, threads: Int) throws -> [String: Data] {
            let out = dir.appendingPathComponent(name).path
            let result = try TestSupport.imgprep(["convert", "-j", "\(jobs)", "-o", out] + options + inputs,
                                                 environment: TestSupport.environment(adding: ["IMGPREP_THREADS_PER_IMAGE": "\(threads)"]))
            #expect(result.status == 0, "\(result.stderr)")
            var outputs: [String: Data] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] {
                outputs[name] = FileManager.default.contents(atPath: out + "/" + name)
            }
            return outputs
        }
        let one = try run("j1", jobs: 1, threads: 1)
        #expect(one.count == 3)
        #expect(try run("j4", jobs: 4, threads: 4) == one, "\(options): -j 4 differs from -j 1")
    }
}

/// libaom always gets two threads (`HeifEncoder.aomThreads`) because, through libheif, its bytes are the
/// same for any count from two up: checked here on the libaom this build links, so an upgrade that breaks
/// it fails this test before it breaks "same input, same bytes" for anyone pinning a different count.
@Suite struct AV1ThreadsTests {
    @Test(.enabled(if: TestSupport.hasTestHooks, "needs the test hooks (-D IMGPREP_TEST_HOOKS, as make test builds)"))
    func libaomWritesTheSameBytesOnTwoThreadsAsOnMore() throws {
        #if IMGPREP_TEST_HOOKS
        let png = try DeterminismTests.photoLikePNG(width: 640, height: 480)
        let decoded = try DecoderRegistry.decoder(for: .png).decode(png, options: DecodeOptions(maxPixels: 1 << 30))
        var encoder = HeifEncoder(codec: .av1)
        #expect(encoder.aomThreadsForTesting == 2)
        let two = try encoder.encode(decoded.content, quality: 50, metadata: ImageMetadata())
        for threads in [3, 4] {
            encoder.aomThreadsForTesting = threads
            let more = try encoder.encode(decoded.content, quality: 50, metadata: ImageMetadata())
            #expect(more == two, "\(threads) threads wrote \(more.count) bytes, two threads \(two.count)")
        }
        #endif
    }
}
