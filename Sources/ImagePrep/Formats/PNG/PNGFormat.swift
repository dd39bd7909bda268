/// PNG in: libpng, with the EXIF, XMP and ICC its chunks hold.
struct PNGFormatReader: ImageFormatReader {
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) ? .success(.png) : nil
    }
    func reads(_ format: SniffedFormat) -> Bool { format == .png }
    func name(of format: SniffedFormat) -> String { "a PNG image" }
    func probeHeader(_ file: [UInt8]) -> ImageHeader? { HeaderProbe.png(file) }
    var decoder: any ImageDecoding { PNGDecoder() }
    func describe(_ file: [UInt8], format: SniffedFormat) throws -> ImageDescription { try ImageInspector.inspectPNG(file) }
    var libraries: [CodecLibrary] { [.libpng, .zlib] }
}

extension SniffedFormat {
    public static let png = SniffedFormat(declaring: "png")
}

/// PNG out: libpng at `--png-compression`; lossless, so no quality and no byte budget.
struct PNGFormatWriter: ImageFormatWriter {
    var format: OutputFormat { .png }
    var displayName: String { "PNG" }
    var fileExtensions: [String] { ["png"] }
    /// Unused by the encoder (lossless); what `--quality` reports when absent.
    var defaultQuality: Int { 85 }
    var isLossy: Bool { false }
    /// Never searched: PNG is lossless.
    var sizeModel: SizeModel { .jpeg }
    func isSameFormat(as format: SniffedFormat) -> Bool { format == .png }
    func encoder(for settings: ConversionSettings, searching: Bool, transposedBlocks: Bool, threads: Int) -> any ImageEncoding {
        PNGEncoder(compressionLevel: settings.pngCompressionLevel)
    }
    var libraries: [CodecLibrary] { [.libpng, .zlib] }
}

extension OutputFormat {
    public static let png = OutputFormat(declaring: "png")
}
