/// Writes pixels plus metadata in one output format. Chosen by the format's writer from the settings,
/// so the pipeline and the budget search never ask which format they are writing. What the format is
/// (lossy, alpha, metadata, size model) is its writer's `traits`, handed back here, not restated.
public protocol ImageEncoding: Sendable {
    var format: OutputFormat { get }
    /// The writer's traits (its lossless mode's, for an encoder in that mode).
    var traits: FormatTraits { get }
    /// The layout this encoder stores Y'CbCr 4:2:0 planes in, when it takes them (planes in another layout
    /// are converted to it plane to plane); nil when it takes RGB only.
    var ycbcrLayout: YCbCrLayout? { get }
    /// Another way to write the same format that is smaller on some pictures; the budget search tries it
    /// one quality above its answer, and a single encode tries both (JPEG: standard tables besides
    /// transposed ones).
    var alternative: (any ImageEncoding)? { get }
    /// Whether a budget search should run two trials at once on idle cores: for encoders that take
    /// seconds and cannot use those cores themselves (libaom here, whose threads would change the bytes).
    var runsTrialsSideBySide: Bool { get }
    /// Memory one encode needs per pixel beyond the decoded picture, for the batch's memory estimates
    /// (measured with scripts/peak-rss.py; see MemoryEstimate).
    var workingBytesPerPixel: Int { get }

    /// Mean squared error per sample of `encoded` (this encoder's output) against `picture`, to choose
    /// between this encoder and its `alternative` at one quality; nil when it cannot tell.
    func meanSquaredError(of encoded: [UInt8], from picture: DecodedPixels) -> Double?
    /// Bytes that `metadata` adds to every encode, whatever the quality.
    func metadataBytes(_ metadata: ImageMetadata) -> Int
    /// One encode. `quality` is 1...100 and ignored by lossless encoders; `metadata` is already
    /// prepared for this output (OutputMetadata.prepare: within the traits' `metadataLimits`, only their
    /// `carriedMetadata`).
    func encode(_ picture: DecodedPixels, quality: Int, metadata: ImageMetadata) throws -> [UInt8]
    /// Another way of writing the format that `--quality auto` searches too, keeping the smaller at the
    /// target, for a format whose ScoreModel `searchesChromaLayouts` without a chroma choice (a palette
    /// without dithering); the chroma layouts themselves come from the settings.
    var scoredAlternative: (any ImageEncoding)? { get }
    /// An encoder that writes the same pixels as this one at every quality, sooner and in somewhat more
    /// bytes (PNG at a cheap deflate level): the score search's trials, whose bytes are only scored, use
    /// it, and its answer is then written by this encoder.
    var scoringDraft: (any ImageEncoding)? { get }
    /// What encodes the picture alone (without what travels beside it, such as an HDR gain map): the
    /// budget search's probes of a crop mosaic use it.
    var pictureEncoder: any ImageEncoding { get }
    /// Bytes every encode of a `width` x `height` picture carries beside the picture and its metadata,
    /// whatever the quality, that shrink with the picture (an HDR gain map).
    func bytesBesidePicture(width: Int, height: Int) -> Int
}

extension ImageEncoding {
    public var traits: FormatTraits { format.writer.traits }
    public var ycbcrLayout: YCbCrLayout? { nil }
    public var alternative: (any ImageEncoding)? { nil }
    public var scoringDraft: (any ImageEncoding)? { nil }
    public var scoredAlternative: (any ImageEncoding)? { nil }
    public func meanSquaredError(of encoded: [UInt8], from picture: DecodedPixels) -> Double? { nil }
    public var runsTrialsSideBySide: Bool { false }
    /// libjpeg and libpng work a few rows at a time.
    public var workingBytesPerPixel: Int { 0 }
    public var pictureEncoder: any ImageEncoding { self }
    public func bytesBesidePicture(width: Int, height: Int) -> Int { 0 }
}

/// The encoder for each output format, as its writer (`Formats.writers`) makes it from the settings.
public enum EncoderRegistry {
    /// - Parameters:
    ///   - searching: the encoder serves a budget search (one fixed chroma setting throughout).
    ///   - threads: what the encoder may use of the machine (never changes its bytes).
    public static func encoder(for settings: ConversionSettings, searching: Bool, threads: Int = 1) -> any ImageEncoding {
        encoder(for: settings, context: EncoderContext(searching: searching, threads: threads))
    }

    public static func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding {
        settings.format.writer.encoder(for: settings, context: context)
    }
}

extension DecodedPixels {
    /// The picture in a form `encoder` takes: Y'CbCr planes in its own layout, or RGB when it takes no planes.
    func prepared(for encoder: any ImageEncoding) -> DecodedPixels {
        guard case .ycbcr420(let planes) = self else { return self }
        guard let layout = encoder.ycbcrLayout else { return .rgb(planes.rgb()) }
        return .ycbcr420(planes.converted(to: layout))
    }
}
