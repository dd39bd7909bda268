import Foundation

/// HEIC out: libheif with x265 (HEVC).
struct HEICFormatWriter: ImageFormatWriter {
    /// Quality 50: what heif-enc defaults to.
    var descriptor: FormatDescriptor { Self.descriptor }
    static let descriptor: FormatDescriptor = {
        FormatDescriptor(format: .heic, displayName: "HEIC", fileExtensions: ["heic", "heif"], mediaType: "image/heic", defaultQuality: 50,
                         traits: HeifEncoder.traits(sizeModel: .heic, scoreModel: .heic), libraries: [.libheif, .hevcEncoder]) {
            HEIFFormatReader().reads($0) && !HEIFFormatReader.isAVIF($0)
        }
    }()
    func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding {
        HeifEncoder(codec: .hevc, subsampling: settings.chromaSubsampling(searching: context.searching), threads: context.threads)
    }
}

extension ScoreModel {
    /// x265 through libheif on six device photos at 2048 pixels: SSIMULACRA 2 reaches 80 at quality
    /// 47.3-54.7 (median 50), 0.7-1.1 points per quality there.
    public static let heic = ScoreModel(qualityAt80: 50, pointsPerQuality: 0.9, fullChromaWhenMissed: true, mosaicScoresAbove: 1.7)
}

extension SizeModel {
    /// x265 through libheif: CRF = (100 - quality) / 2, where 6 more halves the step; above quality 75
    /// sizes grow only half as fast (x265's psycho-visual tuning keeps less of the extra detail). x265
    /// codes at a whole CRF, so two qualities give the same bytes (a test checks that this still holds).
    public static let heic = SizeModel(
        name: "heic",
        scale: { q in
            let crf = Double((100 - q) / 2)
            return pow(2, (crf >= 12 ? crf : 12 - (12 - crf) / 2) / 6)
        },
        sameSetting: { q in
            let crf = (100 - q) / 2
            return max(1, 100 - 2 * crf - 1)...(100 - 2 * crf)
        },
        typicalSlope: -0.85, probeRatio: 0.98)
}

extension OutputFormat {
    public static let heic = OutputFormat(declaring: "heic")
}
