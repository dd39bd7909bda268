/// One format imgprep writes: everything that knows it, in one place. The registry (`Formats.writers`)
/// lists them; `OutputFormat`'s properties, the pipeline's encoder choice, the gain-map plan and the
/// command line's help, checks and format options ask the writer instead of asking which format they write.
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
    /// What the format is; its encoders hand these back (`ImageEncoding.traits`).
    var traits: FormatTraits { get }
    /// Whether `--lossless` chooses a lossless mode of this format.
    var offersLosslessMode: Bool { get }
    /// For a lossless format with a lossy palette mode (`ConversionSettings.palette`), that mode's traits;
    /// nil for the others.
    var paletteTraits: FormatTraits? { get }
    /// Whether `--in-place` may replace inputs of this format with outputs of it.
    var replacesInPlace: Bool { get }
    /// The options only this format reads, in help's order: the command line offers each on the
    /// commands that write the format, and the value lands in `ConversionSettings.formatOptions`
    /// under its name, where the format's own accessors read it.
    var options: [FormatOptionDeclaration] { get }
    /// Whether `format` (a sniffed input) is this same format, so its bytes may be kept as they are.
    func isSameFormat(as format: SniffedFormat) -> Bool
    /// Whether `keepingInput` is asked about an input of `format` before it is decoded: inputs of this same
    /// format by default; a writer may also take another format's file as it is (JPEG XL recompresses a JPEG).
    func considersKeeping(_ format: SniffedFormat) -> Bool
    /// An input of this same format that needs no new pixels, kept (or losslessly turned) rather than
    /// re-encoded; nil when it needs re-encoding. May resolve `settings` for the re-encode, and add to
    /// `notes` what the re-encode's warnings should say about why the input was not kept.
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage?
    /// The encoder for `settings`.
    /// - Parameters:
    ///   - searching: the encoder serves a budget search (one fixed chroma setting throughout).
    ///   - transposedBlocks: the picture is a JPEG's own 8x8 block grid turned by 90° (see JPEGSettings).
    ///   - threads: what the encoder may use of the machine (never changes its bytes).
    func encoder(for settings: ConversionSettings, searching: Bool, transposedBlocks: Bool, threads: Int) -> any ImageEncoding
    /// An encoder that writes `gainMap` beside each encode of `base` (one of this writer's encoders) of a
    /// picture of `pictureSize`, so budgets count it; nil for a format without gain maps
    /// (`traits.carriesGainMap` false).
    func gainMapEncoder(base: any ImageEncoding, gainMap: GainMap, pictureSize: (width: Int, height: Int),
                        threads: Int) -> (any ImageEncoding)?
    /// What an output of `gainMapEncoder` carries of its gain map, read back from its bytes: for reports.
    func writtenGainMap(in output: [UInt8]) -> WrittenGainMap?
    /// The libraries whose versions decide the output bytes (part of the cache key).
    var libraries: [CodecLibrary] { get }
}

extension ImageFormatWriter {
    public var names: [String] { [format.rawValue] }
    public var offersLosslessMode: Bool { false }
    public var paletteTraits: FormatTraits? { nil }
    public var replacesInPlace: Bool { false }
    public var options: [FormatOptionDeclaration] { [] }
    public func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage? { nil }
    public func gainMapEncoder(base: any ImageEncoding, gainMap: GainMap, pictureSize: (width: Int, height: Int),
                               threads: Int) -> (any ImageEncoding)? { nil }
    public func writtenGainMap(in output: [UInt8]) -> WrittenGainMap? { nil }
    public func considersKeeping(_ format: SniffedFormat) -> Bool { isSameFormat(as: format) }
}
