/// JPEG XL in: libjxl, a bare codestream or the ISO-BMFF container, lossy, lossless or JPEG-recompressed,
/// with its ICC profile and its Exif and XMP boxes (compressed `brob` boxes too). The first frame of an
/// animation.
struct JXLFormatReader: ImageFormatReader {
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        JXLStructure.isJXL(bytes) ? .success(.jxl) : nil
    }
    var descriptor: ReaderDescriptor { Self.descriptor }
    static let descriptor = ReaderDescriptor(displayName: "JPEG XL", libraries: [.libjxl], reads: { $0 == .jxl }, fileName: { _ in "a JPEG XL image" },
                                             probeHeader: JXLStructure.header, describe: { file, _ in try JXLDescription.describe(file) })
    var decoder: any ImageDecoding { JXLDecoder() }
}

/// JPEG XL out: libjxl, lossy or (`--lossless`) exact pixels; keeps alpha. With `--lossless`, a JPEG
/// input that needs no change is recompressed as it is (`djxl` gives the same JPEG back, byte for byte).
struct JXLFormatWriter: InputKeepingWriter {
    var descriptor: FormatDescriptor { Self.descriptor }
    static let descriptor: FormatDescriptor = {
        var descriptor = FormatDescriptor(format: .jxl, displayName: "JPEG XL", fileExtensions: ["jxl"], mediaType: "image/jxl",
                                          defaultQuality: JXLDefaults.quality, traits: Self.traits, libraries: [.libjxl]) { $0 == .jxl }
        descriptor.offersLosslessMode = true
        return descriptor
    }()
    /// Boxes for EXIF, XMP (each up to 2^64 bytes) and the ICC profile in the codestream: the defaults.
    static var traits: FormatTraits {
        var traits = FormatTraits(sizeModel: .jxl)
        traits.scoreModel = .jxl
        return traits
    }
    /// An input whose coded picture libjxl can take over (`codedAsDCTBlocks`) is asked first
    /// (`keepingInput`): with --lossless it may be recompressed as it is.
    func considersKeeping(_ format: SniffedFormat) -> Bool { format == .jxl || format.reader.codedAsDCTBlocks }
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage? {
        try JXLRecompression.prepare(file, settings: settings, notes: &notes)
    }
    func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding {
        JXLEncoder(lossless: settings.lossless, threads: context.threads)
    }
}

extension ScoreModel {
    /// libjxl at effort 5 on six device photos at 2048 pixels: SSIMULACRA 2 reaches 80 at quality 74.5-89.4
    /// (median 85), 0.4-1.0 points per quality there.
    public static let jxl = ScoreModel(qualityAt80: 85, pointsPerQuality: 0.8, mosaicScoresAbove: 1.8)
}

extension SizeModel {
    /// libjxl: the butteraugli distance the quality maps to (JXLEncoder.distance, as cjxl 0.7 maps `-q`).
    public static let jxl = SizeModel(
        name: "jxl",
        scale: { q in Double(max(JXLEncoder.distance(quality: q), 0.05)) },
        sameSetting: { q in q...q },
        typicalSlope: JXLDefaults.typicalSlope, probeRatio: JXLDefaults.probeRatio)
}

extension OutputFormat {
    public static let jxl = OutputFormat(declaring: "jxl")
}

extension SniffedFormat {
    public static let jxl = SniffedFormat(declaring: "jxl")
}
