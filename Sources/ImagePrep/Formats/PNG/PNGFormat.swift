/// PNG in: libpng, with the EXIF, XMP and ICC its chunks hold.
struct PNGFormatReader: ImageFormatReader {
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) ? .success(.png) : nil
    }
    var descriptor: ReaderDescriptor { Self.descriptor }
    static let descriptor: ReaderDescriptor = {
        var descriptor = ReaderDescriptor(displayName: "PNG", libraries: [.libpng, .zlib], reads: { $0 == .png }, fileName: { _ in "a PNG image" },
                                          probeHeader: HeaderProbe.png, describe: { file, _ in try ImageInspector.inspectPNG(file) })
        descriptor.storesLosslessly = true
        return descriptor
    }()
    var decoder: any ImageDecoding { PNGDecoder() }
}

extension SniffedFormat {
    public static let png = SniffedFormat(declaring: "png")
}

/// PNG out: libpng, its picture data deflated by libdeflate at `--png-compression`, in the smallest layout that holds the pixels exactly.
/// Lossless, unless a palette is asked for (`ConversionSettings.palette`): then libimagequant's quality, searched by budgets and targets
/// like any lossy format's. A PNG input is never made larger (PNGInput).
struct PNGFormatWriter: InputKeepingWriter {
    var descriptor: FormatDescriptor { Self.descriptor }
    static let descriptor: FormatDescriptor = {
        // Quality 85: unused by the lossless encoder; what `--quality` reports when absent.
        var descriptor = FormatDescriptor(format: .png, displayName: "PNG", fileExtensions: ["png"], mediaType: "image/png",
                                          defaultQuality: 85, traits: Self.traits,
                                          libraries: [.libpng, .zlib, .libdeflate, .libimagequant]) { $0 == .png }
        descriptor.replacesInPlace = true
        descriptor.paletteTraits = Self.palette
        descriptor.options = [Self.compression]
        return descriptor
    }()
    static var traits: FormatTraits {
        // Lossless: no size model. PNG has no chunk for IPTC (Photoshop resources); comments become
        // `Comment` text chunks.
        var traits = FormatTraits(sizeModel: nil)
        traits.carriedMetadata = [.exif, .xmp, .icc, .comment]
        return traits
    }
    /// Palette mode: quality is libimagequant's, and fewer colours make smaller files.
    static let palette: FormatTraits = {
        var traits = PNGFormatWriter.traits
        traits.sizeModel = .pngPalette
        traits.scoreModel = .pngPalette
        return traits
    }()
    static let compression = FormatOptionDeclaration.integer(
        "png-compression", "N", in: PNGDeflate.levels, default: PNGEncoder.defaultCompressionLevel,
        help: "deflate effort for PNG output, 0 (stored, fastest) to 12 (smallest)")
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage? {
        try PNGInput.smallerOfInputAndRewrite(file, settings: settings)
    }
    func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding {
        PNGEncoder(compressionLevel: settings.formatOptions.pngCompressionLevel, palette: settings.palette)
    }
}

extension SizeModel {
    /// libimagequant: its error allowance (101 - quality) as the scale. Palette PNGs grow slowly as it
    /// shrinks: slope -0.43 on a photo (quality 60 to 80) and -0.2 on a screenshot (50 to 80), pngquant 2.17.
    public static let pngPalette = SizeModel(name: "png-palette", scale: { q in Double(101 - q) }, sameSetting: { q in q...q },
                                             typicalSlope: -0.35, probeRatio: 1)
}

extension ScoreModel {
    /// libimagequant on the screenshot fixture scores 82.6 at quality 80 and 88.7 at 90; a photo stays near 76
    /// even at 100 (256 colours are too few), where the search settles on its best.
    /// Both its ways are searched: dithered and not (PNGEncoder.scoredAlternative).
    public static let pngPalette = ScoreModel(qualityAt80: 85, pointsPerQuality: 0.5, searchesChromaLayouts: true)
}

extension OutputFormat {
    public static let png = OutputFormat(declaring: "png")
}

extension FormatOptions {
    /// `--png-compression`: libdeflate's level.
    var pngCompressionLevel: Int { integer(PNGFormatWriter.compression) }
}
