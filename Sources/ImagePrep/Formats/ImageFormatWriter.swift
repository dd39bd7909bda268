/// One format imgprep writes, behind a narrow seam: a descriptor (what the rest of imgprep asks about it,
/// as data) and the one method that makes its encoder. What only some formats do is an optional
/// capability the pipeline asks for by casting: keeping an input as it came (`InputKeepingWriter`) and
/// writing an HDR gain map beside the picture (`GainMapWriter`). The registry (`Formats.writers`) lists
/// the writers; `OutputFormat`'s properties, the pipeline, the gain-map plan and the command line's help,
/// checks and format options ask the writer instead of asking which format they write.
public protocol ImageFormatWriter: Sendable {
    var descriptor: FormatDescriptor { get }
    /// The encoder for `settings`.
    func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding
}

/// What imgprep knows of a format it writes, without encoding anything.
public struct FormatDescriptor: Sendable {
    public let format: OutputFormat
    /// How messages name the format: "JPEG".
    public let displayName: String
    /// What `--to` accepts for it, lowercase: the format's raw value first, then any alias (`jpg`).
    public var names: [String]
    /// Every extension that names the format, lowercase; the first is the one outputs get.
    public let fileExtensions: [String]
    /// What `<source type>` and HTTP say it is.
    public let mediaType: String
    /// `--quality` when none is given.
    public let defaultQuality: Int
    /// What the format is; its encoders hand these back (`ImageEncoding.traits`).
    public var traits: FormatTraits
    /// Whether `--lossless` chooses a lossless mode of this format.
    public var offersLosslessMode = false
    /// For a lossless format with a lossy palette mode (`ConversionSettings.palette`), that mode's traits.
    public var paletteTraits: FormatTraits?
    /// Whether `--in-place` may replace inputs of this format with outputs of it.
    public var replacesInPlace = false
    /// The options only this format reads, in help's order: the command line offers each on the
    /// commands that write the format, and the value lands in `ConversionSettings.formatOptions`
    /// under its name, where the format's own accessors read it.
    public var options: [FormatOptionDeclaration] = []
    /// The libraries whose versions decide the output bytes (part of the cache key).
    public let libraries: [CodecLibrary]
    /// Whether a sniffed input is this same format, so its bytes may be kept as they are.
    public let isSameFormat: @Sendable (SniffedFormat) -> Bool

    public init(format: OutputFormat, displayName: String, fileExtensions: [String], mediaType: String, defaultQuality: Int,
                traits: FormatTraits, libraries: [CodecLibrary], isSameFormat: @escaping @Sendable (SniffedFormat) -> Bool) {
        self.format = format
        self.displayName = displayName
        names = [format.rawValue]
        self.fileExtensions = fileExtensions
        self.mediaType = mediaType
        self.defaultQuality = defaultQuality
        self.traits = traits
        self.libraries = libraries
        self.isSameFormat = isSameFormat
    }
}

/// What an encoder is told besides the settings: facts of this use of it, which never change what the
/// settings ask for.
public struct EncoderContext: Sendable {
    /// The encoder serves a budget or score search (one fixed chroma setting throughout).
    public var searching = false
    /// What the encoder may use of the machine (never changes its bytes).
    public var threads = 1
    /// The picture is its input's own coded 8x8 block grid turned by 90° at the same size (see JPEGSettings).
    public var turnedBlockGrid = false

    public init(searching: Bool = false, threads: Int = 1, turnedBlockGrid: Bool = false) {
        self.searching = searching
        self.threads = threads
        self.turnedBlockGrid = turnedBlockGrid
    }
}

/// A writer that may keep an input as it came (or turn it losslessly) instead of re-encoding it.
public protocol InputKeepingWriter: ImageFormatWriter {
    /// Whether `keepingInput` is asked about an input of `format` before it is decoded: inputs of this same
    /// format by default; a writer may also take another format's file as it is (JPEG XL recompresses a JPEG).
    func considersKeeping(_ format: SniffedFormat) -> Bool
    /// An input that needs no new pixels, kept rather than re-encoded; nil when it needs re-encoding. May
    /// resolve `settings` for the re-encode, and add to `notes` what the re-encode's warnings should say
    /// about why the input was not kept.
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage?
}

extension InputKeepingWriter {
    public func considersKeeping(_ format: SniffedFormat) -> Bool { descriptor.isSameFormat(format) }
}

/// A writer that writes an HDR gain map beside the picture (`traits.carriesGainMap`).
public protocol GainMapWriter: ImageFormatWriter {
    /// An encoder that writes `gainMap` beside each encode of `base` (one of this writer's encoders) of a
    /// picture of `pictureSize`, so budgets count it.
    func gainMapEncoder(base: any ImageEncoding, gainMap: GainMap, pictureSize: (width: Int, height: Int),
                        threads: Int) -> any ImageEncoding
    /// What an output of `gainMapEncoder` carries of its gain map, read back from its bytes: for reports.
    func writtenGainMap(in output: [UInt8]) -> WrittenGainMap?
}

/// The descriptor's fields, asked of the writer.
extension ImageFormatWriter {
    public var format: OutputFormat { descriptor.format }
    public var displayName: String { descriptor.displayName }
    public var names: [String] { descriptor.names }
    public var fileExtensions: [String] { descriptor.fileExtensions }
    public var defaultQuality: Int { descriptor.defaultQuality }
    public var traits: FormatTraits { descriptor.traits }
    public var offersLosslessMode: Bool { descriptor.offersLosslessMode }
    public var paletteTraits: FormatTraits? { descriptor.paletteTraits }
    public var replacesInPlace: Bool { descriptor.replacesInPlace }
    public var options: [FormatOptionDeclaration] { descriptor.options }
    public var libraries: [CodecLibrary] { descriptor.libraries }
    public func isSameFormat(as format: SniffedFormat) -> Bool { descriptor.isSameFormat(format) }
}
