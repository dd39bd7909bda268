/// One format imgprep reads, behind a narrow seam: a descriptor (what the rest of imgprep asks about it,
/// mostly data, as a libvips loader is), the sniff that recognises its files, and its decoder. JPEG's
/// checks of a file that may be kept as it is are an optional capability (`UnchangedInputReader`). The
/// registry (`Formats.readers`) lists them; the sniffer, the batch's header probe, the pipeline's decoder
/// choice and `info` ask the reader instead of asking which format they hold.
public protocol ImageFormatReader: Sendable {
    var descriptor: ReaderDescriptor { get }
    /// The format when `bytes` (the file's first bytes, or all of it) are one of this reader's files;
    /// a failure when they are, but in a variant imgprep cannot read; nil when they are not.
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>?
    /// The decoder that turns a file into pixels plus metadata.
    var decoder: any ImageDecoding { get }
}

/// What imgprep knows of a format it reads, besides its sniff and its decoder.
public struct ReaderDescriptor: Sendable {
    /// How help lists the files it reads: "JPEG", "HEIC/HEIF/AVIF".
    public let displayName: String
    /// The libraries whose versions decide the decoded pixels (part of the cache key).
    public let libraries: [CodecLibrary]
    /// Whether `format` is one this reader handles.
    public let reads: @Sendable (SniffedFormat) -> Bool
    /// How messages name a file of `format`: "a JPEG image".
    public let fileName: @Sendable (SniffedFormat) -> String
    /// The picture's header from a file's first bytes, without a codec library (nil when they do not tell):
    /// what the batch's main process reads to plan memory before the whole file is read.
    public let probeHeader: @Sendable ([UInt8]) -> ImageHeader?
    /// What `info` tells of the file.
    public let describe: @Sendable ([UInt8], SniffedFormat) throws -> ImageDescription
    /// Whether the file's picture is coded as 8x8 DCT blocks that another format can take over losslessly
    /// (JPEG's, which JPEG XL recompresses), rather than only as pixels.
    public var codedAsDCTBlocks = false
    /// Whether the decoder hands an opaque colour picture out as its coded Y'CbCr 4:2:0 planes, whatever its
    /// size, when the encoder takes planes (`DecodeOptions.keepsYCbCr420`): the memory estimate's factor.
    public var decodesToYCbCrPlanes = false
    /// Whether every file of the format holds its pixels exactly (PNG, GIF): a graphic in one is written
    /// losslessly or as a palette by `compress` before any lossy format (GraphicRoute).
    public var storesLosslessly = false

    public init(displayName: String, libraries: [CodecLibrary], reads: @escaping @Sendable (SniffedFormat) -> Bool,
                fileName: @escaping @Sendable (SniffedFormat) -> String, probeHeader: @escaping @Sendable ([UInt8]) -> ImageHeader?,
                describe: @escaping @Sendable ([UInt8], SniffedFormat) throws -> ImageDescription) {
        self.displayName = displayName
        self.libraries = libraries
        self.reads = reads
        self.fileName = fileName
        self.probeHeader = probeHeader
        self.describe = describe
    }
}

/// A reader that can tell when a file may be written with its coded picture as it is.
public protocol UnchangedInputReader: ImageFormatReader {
    /// The file's size and warnings when it needs no new pixels and no metadata change for `settings`
    /// (upright, within --max-dimension, its own colours kept, metadata as it is, no gain map to drop), so
    /// that a writer may keep its coded picture; nil when it must change.
    func unchanged(_ file: [UInt8], settings: ConversionSettings) throws -> UnchangedInput?
    /// Whether the file's coded data ends before its picture does (a cut download): such a file, let through
    /// with --allow-truncated, is always decoded, never kept as it is.
    func endsEarly(_ file: [UInt8]) -> Bool
}

/// An input that can be written with its coded picture as it is (UnchangedInputReader.unchanged).
public struct UnchangedInput: Sendable {
    public var width: Int
    public var height: Int
    public var warnings: [String]
}

/// The descriptor's fields, asked of the reader.
extension ImageFormatReader {
    public var displayName: String { descriptor.displayName }
    public var libraries: [CodecLibrary] { descriptor.libraries }
    public func reads(_ format: SniffedFormat) -> Bool { descriptor.reads(format) }
    public func name(of format: SniffedFormat) -> String { descriptor.fileName(format) }
    public func probeHeader(_ file: [UInt8]) -> ImageHeader? { descriptor.probeHeader(file) }
    public func describe(_ file: [UInt8], format: SniffedFormat) throws -> ImageDescription { try descriptor.describe(file, format) }
    public var codedAsDCTBlocks: Bool { descriptor.codedAsDCTBlocks }
    public var decodesToYCbCrPlanes: Bool { descriptor.decodesToYCbCrPlanes }
    public var storesLosslessly: Bool { descriptor.storesLosslessly }
    /// Whether the file ends before its picture does; only a reader that checks its files' ends can tell.
    public func isCutShort(_ file: [UInt8]) -> Bool { (self as? any UnchangedInputReader)?.endsEarly(file) ?? false }
}
