/// What an output format is, declared once by its writer (`ImageFormatWriter.traits`); its encoders
/// hand back their writer's (`ImageEncoding.traits`), so writer and encoder cannot disagree. Shared code
/// (the pipeline, the budget search, the metadata preparation, help) asks these instead of the format.
public struct FormatTraits: Sendable, Equatable {
    /// How size falls with quality, to aim a budget search; nil for a format (or mode) without a quality.
    public var sizeModel: SizeModel?
    /// Whether alpha survives; when it does not, the pipeline flattens onto `--background` first.
    public var keepsAlpha = true
    /// Whether every frame of an animation is written (`DecodedPixels.animation`); otherwise the decoder
    /// hands back the first frame only.
    public var keepsAnimation = false
    /// The largest EXIF and XMP blocks the format can carry.
    public var metadataLimits = MetadataLimits()
    /// The metadata blocks the format has a place for. OutputMetadata drops the others before encoding,
    /// with a warning that names each, so an encoder never has to drop anything silently.
    public var carriedMetadata: Set<MetadataBlock> = [.exif, .xmp, .icc]
    /// Whether an HDR gain map can be written beside the picture (the writer's `gainMapEncoder`).
    public var carriesGainMap = false
    /// Whether `--subsampling` chooses its chroma layout (`ConversionSettings.chromaSubsampling`).
    public var subsamplesChroma = false
    /// How its SSIMULACRA 2 score follows quality, for `--quality auto`; nil for a format (or mode) without
    /// a quality.
    public var scoreModel: ScoreModel?

    public init(sizeModel: SizeModel?) {
        self.sizeModel = sizeModel
    }

    /// Whether quality means anything: a byte budget (`--max-bytes`, `compress`) needs a lossy format.
    public var isLossy: Bool { sizeModel != nil }

    /// The same format in its lossless mode (`--lossless`): no quality to search.
    public var lossless: FormatTraits {
        var copy = self
        copy.sizeModel = nil
        copy.scoreModel = nil
        return copy
    }
}

/// How big a metadata block an output format can hold (nil: no limit short of memory).
public struct MetadataLimits: Sendable, Equatable {
    public var exifBytes: Int?
    public var xmpBytes: Int?

    public init(exifBytes: Int? = nil, xmpBytes: Int? = nil) {
        self.exifBytes = exifBytes
        self.xmpBytes = xmpBytes
    }
}
