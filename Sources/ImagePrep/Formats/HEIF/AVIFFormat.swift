import Foundation

/// AVIF out: libheif with libaom (AV1).
struct AVIFFormatWriter: ImageFormatWriter {
    /// Quality 50: what heif-enc defaults to.
    var descriptor: FormatDescriptor { Self.descriptor }
    static let descriptor: FormatDescriptor = {
        var descriptor = FormatDescriptor(format: .avif, displayName: "AVIF", fileExtensions: ["avif"], mediaType: "image/avif", defaultQuality: 50,
                                          traits: HeifEncoder.traits(sizeModel: .avif, scoreModel: .avif),
                                          libraries: [.libheif, .av1Encoder]) { HEIFFormatReader.isAVIF($0) }
        descriptor.options = [Self.speed]
        return descriptor
    }()
    func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding {
        HeifEncoder(codec: .av1, subsampling: settings.chromaSubsampling(searching: context.searching), threads: context.threads,
                    aomSpeed: settings.formatOptions.avifSpeed)
    }
    /// libaom's speed: on six device photos at 2048 pixels, 9 took a fifth of 6's CPU time for about 7% more
    /// bytes at the same SSIMULACRA 2 (docs/formats.md).
    static let speed = FormatOptionDeclaration.integer("avif-speed", "N", in: 0...9, default: HeifEncoder.defaultAOMSpeed,
                                                       help: "libaom speed for AVIF output, 0 (slowest) to 9 (fastest, about 7% more bytes than 6 for the same look)")
}

extension ScoreModel {
    /// libaom through libheif on six device photos at 2048 pixels: SSIMULACRA 2 reaches 80 at quality
    /// 70.7-82.7 (median 75), 0.3-0.7 points per quality there.
    public static let avif = ScoreModel(qualityAt80: 75, pointsPerQuality: 0.5, fullChromaWhenMissed: true, mosaicScoresAbove: 1.5)
}

extension SizeModel {
    /// libaom through libheif: the AV1 AC step of the cq-level ((100 - quality) * 63 + 50) / 100. libheif
    /// maps AVIF qualities onto 64 cq-levels, so neighbouring qualities can give the same bytes.
    public static let avif = SizeModel(
        name: "avif",
        scale: { q in
            let cqLevel = cqLevel(q)
            return av1Step(Double(cqLevel < 62 ? 4 * cqLevel : cqLevel == 62 ? 249 : 255))
        },
        sameSetting: { q in
            var (lower, upper) = (q, q)
            while lower > 1, cqLevel(lower - 1) == cqLevel(q) { lower -= 1 }
            while upper < 100, cqLevel(upper + 1) == cqLevel(q) { upper += 1 }
            return lower...upper
        },
        typicalSlope: -0.78, probeRatio: 0.95)

    private static func cqLevel(_ quality: Int) -> Int { ((100 - quality) * 63 + 50) / 100 }

    /// libaom's 8-bit AC step: the index plus 7 up to 95, then growing about 1.8% per index.
    private static func av1Step(_ qindex: Double) -> Double {
        qindex <= 95 ? max(qindex + 7, 4) : 102 * exp(0.018 * (qindex - 95))
    }
}

extension FormatOptions {
    /// `--avif-speed`: libaom's speed.
    var avifSpeed: Int { integer(AVIFFormatWriter.speed) }
}

extension OutputFormat {
    public static let avif = OutputFormat(declaring: "avif")
}
