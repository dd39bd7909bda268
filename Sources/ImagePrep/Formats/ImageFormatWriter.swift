/// One format imgprep writes: everything that knows it, in one place. The registry (`Formats.writers`)
/// lists them; `OutputFormat`'s properties, the pipeline's encoder choice, the gain-map plan and the
/// command line's help and checks ask the writer instead of asking which format they write.
public protocol ImageFormatWriter: Sendable {
    var format: OutputFormat { get }
    /// How messages name the format: "JPEG".
    var displayName: String { get }
    /// What `--to` accepts for it, lowercase: the format's raw value first, then any alias (`jpg`).
    var names: [String] { get }
    /// Every extension that names the format, lowercase; the first is the one outputs get.
    var fileExtensions: [String] { get }
    /// `--quality` when none is given.
    var defaultQuality: Int { get }
    /// Whether quality means anything: a byte budget (`--max-bytes`, `compress`) needs a lossy format.
    var isLossy: Bool { get }
    /// Whether `--lossless` chooses a lossless mode of this format.
    var offersLosslessMode: Bool { get }
    /// Whether `--in-place` may replace inputs of this format with outputs of it.
    var replacesInPlace: Bool { get }
    /// Whether an HDR gain map can be written beside the picture.
    var carriesGainMap: Bool { get }
    /// How output size follows quality, to aim a budget search.
    var sizeModel: SizeModel { get }
    /// Whether `format` (a sniffed input) is this same format, so its bytes may be kept as they are.
    func isSameFormat(as format: SniffedFormat) -> Bool
    /// Whether `keepingInput` is asked about an input of `format` before it is decoded: inputs of this same
    /// format by default; a writer may also take another format's file as it is (JPEG XL recompresses a JPEG).
    func considersKeeping(_ format: SniffedFormat) -> Bool
    /// An input of this same format that needs no new pixels, kept (or losslessly turned) rather than
    /// re-encoded; nil when it needs re-encoding. May resolve `settings` for the re-encode.
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings) throws -> PreparedImage?
    /// The encoder for `settings`.
    /// - Parameters:
    ///   - searching: the encoder serves a budget search (one fixed chroma setting throughout).
    ///   - transposedBlocks: the picture is a JPEG's own 8x8 block grid turned by 90° (see JPEGSettings).
    ///   - threads: what the encoder may use of the machine (never changes its bytes).
    func encoder(for settings: ConversionSettings, searching: Bool, transposedBlocks: Bool, threads: Int) -> any ImageEncoding
    /// The libraries whose versions decide the output bytes (part of the cache key).
    var libraries: [CodecLibrary] { get }
}

extension ImageFormatWriter {
    public var names: [String] { [format.rawValue] }
    public var isLossy: Bool { true }
    public var offersLosslessMode: Bool { false }
    public var replacesInPlace: Bool { false }
    public var carriesGainMap: Bool { false }
    public func keepingInput(_ file: [UInt8], settings: inout ConversionSettings) throws -> PreparedImage? { nil }
    public func considersKeeping(_ format: SniffedFormat) -> Bool { isSameFormat(as: format) }
}
