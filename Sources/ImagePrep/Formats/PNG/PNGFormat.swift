/// PNG in: libpng, with the EXIF, XMP and ICC its chunks hold.
struct PNGFormatReader: ImageFormatReader {
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) ? .success(.png) : nil
    }
    func reads(_ format: SniffedFormat) -> Bool { format == .png }
    var displayName: String { "PNG" }
    func name(of format: SniffedFormat) -> String { "a PNG image" }
    func probeHeader(_ file: [UInt8]) -> ImageHeader? { HeaderProbe.png(file) }
    var decoder: any ImageDecoding { PNGDecoder() }
    func describe(_ file: [UInt8], format: SniffedFormat) throws -> ImageDescription { try ImageInspector.inspectPNG(file) }
    var libraries: [CodecLibrary] { [.libpng, .zlib] }
}

extension SniffedFormat {
    public static let png = SniffedFormat(declaring: "png")
}

/// PNG out: libpng, its picture data deflated by libdeflate at `--png-compression`, in the smallest layout that holds the pixels exactly; lossless,
/// so no quality and no byte budget. A PNG input is never made larger (PNGInput).
struct PNGFormatWriter: ImageFormatWriter {
    var format: OutputFormat { .png }
    var displayName: String { "PNG" }
    var fileExtensions: [String] { ["png"] }
    /// Unused by the encoder (lossless); what `--quality` reports when absent.
    var defaultQuality: Int { 85 }
    var traits: FormatTraits {
        // Lossless: no size model. PNG has no chunk for IPTC (Photoshop resources); comments become
        // `Comment` text chunks.
        var traits = FormatTraits(sizeModel: nil)
        traits.carriedMetadata = [.exif, .xmp, .icc, .comment]
        return traits
    }
    static let compression = FormatOptionDeclaration.integer(
        "png-compression", "N", in: PNGDeflate.levels, default: PNGEncoder.defaultCompressionLevel,
        help: "deflate effort for PNG output, 0 (stored, fastest) to 12 (smallest)")
    var options: [FormatOptionDeclaration] { [Self.compression] }
    func isSameFormat(as format: SniffedFormat) -> Bool { format == .png }
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage? {
        try PNGInput.smallerOfInputAndRewrite(file, settings: settings)
    }
    func encoder(for settings: ConversionSettings, searching: Bool, transposedBlocks: Bool, threads: Int) -> any ImageEncoding {
        PNGEncoder(compressionLevel: settings.formatOptions.pngCompressionLevel)
    }
    var libraries: [CodecLibrary] { [.libpng, .zlib, .libdeflate] }
}

extension OutputFormat {
    public static let png = OutputFormat(declaring: "png")
}

extension FormatOptions {
    /// `--png-compression`: libdeflate's level.
    var pngCompressionLevel: Int { integer(PNGFormatWriter.compression) }
}
