import Foundation
import Testing
@testable import ImagePrep

/// When the metadata leaves a budget no room, the error says what the metadata is and which option
/// would remove what is left: never "--strip-metadata" to someone who gave it.
@Suite struct MetadataOverBudgetTests {
    static let bigProfile = CodecTestSupport.profile(size: 30_000)

    static func input(_ metadata: ImageMetadata) throws -> [UInt8] {
        try JPEGEncoder().encode(CodecTestSupport.gradient(width: 400, height: 300), quality: 95, settings: JPEGSettings(),
                                 segments: JPEGSegment.segments(for: metadata))
    }

    static func message(_ file: [UInt8], budget: Int, strip: Bool, color: ColorHandling = .keep) -> String {
        var settings = ConversionSettings()
        settings.budget = ByteBudget(maxBytes: budget)
        settings.stripMetadata = strip
        settings.color = color
        do {
            _ = try ImagePipeline.prepare(file, settings: settings)
            return "fitted"
        } catch {
            #expect((error as? ImagePrepError)?.kind == .doesNotFit, "\(error)")
            return "\(error)"
        }
    }

    @Test func strippedDownToTheProfileSuggestsColorSRGBNotStripMetadata() throws {
        let file = try Self.input(ImageMetadata(exif: CodecTestSupport.exifWithOrientation(1), icc: Self.bigProfile))
        let message = Self.message(file, budget: 20_000, strip: true)
        #expect(message.contains("ICC profile 30000") && !message.contains("EXIF"), "\(message)")
        #expect(message.contains("--color srgb") && !message.contains("--strip-metadata drops"), "\(message)")

        let kept = Self.message(file, budget: 20_000, strip: false)
        #expect(kept.contains("EXIF") && kept.contains("--strip-metadata drops all but the ICC profile") && kept.contains("--color srgb"), "\(kept)")
    }

    @Test func noMetadataAtAllSaysTheBudgetIsTooSmall() throws {
        let file = try Self.input(ImageMetadata())
        let message = Self.message(file, budget: 600, strip: true)
        #expect(message.contains("leaves no room for a picture") && !message.contains("--strip-metadata") && !message.contains(" 0 bytes"), "\(message)")
        let srgb = Self.message(try Self.input(ImageMetadata(icc: Self.bigProfile)), budget: 600, strip: true, color: .srgb)
        #expect(srgb.contains("leaves no room for a picture"), "\(srgb)")
    }
}
