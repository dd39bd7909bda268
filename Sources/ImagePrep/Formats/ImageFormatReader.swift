/// One format imgprep reads: everything that knows it, in one place. The registry (`Formats.readers`)
/// lists them; the sniffer, the batch's header probe, the pipeline's decoder choice and `info` ask the
/// reader instead of asking which format they hold.
public protocol ImageFormatReader: Sendable {
    /// The format when `bytes` (the file's first bytes, or all of it) are one of this reader's files;
    /// a failure when they are, but in a variant imgprep cannot read; nil when they are not.
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>?
    /// Whether `format` is one this reader handles.
    func reads(_ format: SniffedFormat) -> Bool
    /// How help lists the files it reads: "JPEG", "HEIC/HEIF/AVIF".
    var displayName: String { get }
    /// How messages name a file of `format`: "a JPEG image".
    func name(of format: SniffedFormat) -> String
    /// The picture's header from a file's first bytes, without a codec library (nil when they do not tell):
    /// what the batch's main process reads to plan memory before the whole file is read.
    func probeHeader(_ file: [UInt8]) -> ImageHeader?
    /// The decoder that turns a file into pixels plus metadata.
    var decoder: any ImageDecoding { get }
    /// What `info` tells of the file.
    func describe(_ file: [UInt8], format: SniffedFormat) throws -> ImageDescription
    /// The libraries whose versions decide the decoded pixels (part of the cache key).
    var libraries: [CodecLibrary] { get }
    /// Whether the file's picture is coded as 8x8 DCT blocks that another format can take over losslessly
    /// (JPEG's, which JPEG XL recompresses), rather than only as pixels.
    var codedAsDCTBlocks: Bool { get }
    /// Whether the decoder hands an opaque colour picture out as its coded Y'CbCr 4:2:0 planes, whatever its
    /// size, when the encoder takes planes (`DecodeOptions.keepsYCbCr420`): the memory estimate's factor.
    var decodesToYCbCrPlanes: Bool { get }
    /// The file's size and warnings when it needs no new pixels and no metadata change for `settings`
    /// (upright, within --max-dimension, its own colours kept, metadata as it is, no gain map to drop), so
    /// that a writer may keep its coded picture; nil when it must change.
    func unchanged(_ file: [UInt8], settings: ConversionSettings) throws -> UnchangedInput?
    /// Whether every file of the format holds its pixels exactly (PNG, GIF): a graphic in one is written
    /// losslessly or as a palette by `compress` before any lossy format (GraphicRoute).
    var storesLosslessly: Bool { get }
    /// Whether the file's coded data ends before its picture does (a cut download): such a file, let through
    /// with --allow-truncated, is always decoded, never kept as it is.
    func endsEarly(_ file: [UInt8]) -> Bool
}

/// An input that can be written with its coded picture as it is (ImageFormatReader.unchanged).
public struct UnchangedInput: Sendable {
    public var width: Int
    public var height: Int
    public var warnings: [String]
}

extension ImageFormatReader {
    public var codedAsDCTBlocks: Bool { false }
    public var decodesToYCbCrPlanes: Bool { false }
    public var storesLosslessly: Bool { false }
    public func endsEarly(_ file: [UInt8]) -> Bool { false }
    public func unchanged(_ file: [UInt8], settings: ConversionSettings) throws -> UnchangedInput? { nil }
}
