import Foundation
import Testing
@testable import ImagePrep

/// A budget that even --min-quality cannot meet at full size: the output is the largest size that fits at
/// that quality or above, to within 10% (a long edge 10% longer does not fit), not a size shrunk past it.
@Suite struct ShrinkToFitTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var format: OutputFormat
        var budget: Int
        var stripMetadata = false
        var description: String { "\(name) \(format) \(budget)" }
    }

    static let synthetic: [Case] = [
        Case(name: "photo-like.png", format: .jpeg, budget: 15_000),
        Case(name: "photo-like.png", format: .jpeg, budget: 2_000, stripMetadata: true),
        Case(name: "photo-like.png", format: .webp, budget: 8_000),
    ]

    static let corpusCases: [Case] = [
        Case(name: "heic/libvips__Example1.heic", format: .jpeg, budget: 100_000),
        Case(name: "heic/libvips__Example1.heic", format: .jpeg, budget: 2_000, stripMetadata: true),
        Case(name: "jpeg/immich__craft-beer.jpg", format: .jpeg, budget: 100_000),
        Case(name: "heic/immich__IMG_2682.heic", format: .webp, budget: 60_000),
    ]

    @Test(arguments: synthetic)
    func theLargestSizeThatFitsIsWritten(_ example: Case) throws {
        try check(example, file: DeterminismTests.photoLikePNG())
    }

    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS): corpus photos not shrunk"),
          arguments: corpusCases)
    func corpusPhotosShrinkToTheLargestSizeThatFits(_ example: Case) throws {
        let corpus = try #require(TestSupport.corpus)
        try check(example, file: TestSupport.bytes(corpus.appendingPathComponent(example.name).path))
    }

    func check(_ example: Case, file: [UInt8]) throws {
        var settings = ConversionSettings()
        settings.format = example.format
        settings.stripMetadata = example.stripMetadata
        settings.budget = ByteBudget(maxBytes: example.budget)
        let floor = settings.budget?.minQuality ?? 40
        let result = try ImagePipeline.prepare(file, settings: settings)
        let quality = try #require(result.quality)
        #expect(result.bytes.count <= example.budget, "\(example)")
        #expect(quality >= floor, "\(example)")
        #expect(result.warnings.contains { $0.contains("does not fit") }, "\(example): not shrunk, so not a test of shrinking")

        // The same picture with a long edge 10% longer, encoded at --min-quality as the search would.
        let header = try DecoderRegistry.decoder(for: FormatSniffer.sniff(file).get()).header(of: file)
        let upright = result.width > result.height ? (max(header.width, header.height), min(header.width, header.height))
                                                   : (min(header.width, header.height), max(header.width, header.height))
        let longer = Int((Double(max(result.width, result.height)) * 1.1).rounded(.up))
        let grown = fittedSize(width: upright.0, height: upright.1, maxDimension: longer)
        var search = settings
        search.subsampling = .s420   // what a budget search uses
        let bytes = try WebBudgetTests.encode(file, settings: search, width: grown.width, height: grown.height, quality: floor)
        #expect(bytes.count > example.budget,
                "\(example): wrote \(result.width)x\(result.height) at quality \(quality), but \(grown.width)x\(grown.height) fits at quality \(floor) (\(bytes.count) bytes)")

        // Bounded trials: on corpus photos 3-4 encodes and 1-2 probe encodes (the shrinking that overshot
        // took 3-5 and 4-6); the synthetic texture, whose size does not follow a photo's power of the
        // edge, takes up to 6.
        print("ShrinkToFitTests: \(example): \(result.width)x\(result.height) at quality \(quality), \(result.encodes) encodes, \(result.probes) probe encodes")
        #expect(result.encodes <= 7 && result.probes <= 4, "\(example): \(result.encodes) encodes, \(result.probes) probes")
    }
}
