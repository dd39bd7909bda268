import Foundation

/// WebP in: libwebp (lossy, lossless, extended with alpha, metadata chunks and animation).
struct WebPFormatReader: ImageFormatReader {
    /// RIFF with form type WEBP. libwebp checks the chunks themselves: a damaged WebP is reported as
    /// such, not as "not an image".
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)) && bytes[8..<12].elementsEqual("WEBP".utf8) ? .success(.webp) : nil
    }
    var descriptor: ReaderDescriptor { Self.descriptor }
    static let descriptor = ReaderDescriptor(displayName: "WebP", libraries: [.libwebp], reads: { $0 == .webp }, fileName: { _ in "a WebP image" },
                                             probeHeader: HeaderProbe.webp, describe: { file, _ in try ImageInspector.inspectWebP(file) })
    var decoder: any ImageDecoding { WebPDecoder() }
}

extension SniffedFormat {
    public static let webp = SniffedFormat(declaring: "webp")
}

/// WebP out: libwebp, lossy or (`--lossless`) lossless; keeps alpha and animations. A WebP input within
/// budget that needs no change is passed through.
struct WebPFormatWriter: InputKeepingWriter {
    var descriptor: FormatDescriptor { Self.descriptor }
    static let descriptor: FormatDescriptor = {
        // Quality 80: what cwebp defaults to.
        var descriptor = FormatDescriptor(format: .webp, displayName: "WebP", fileExtensions: ["webp"], mediaType: "image/webp",
                                          defaultQuality: 80, traits: Self.traits, libraries: [.libwebp]) { $0 == .webp }
        descriptor.offersLosslessMode = true
        return descriptor
    }()
    static var traits: FormatTraits {
        // The container has chunks for EXIF, XMP and ICC only (the default), each up to 4 GB (a RIFF chunk).
        var traits = FormatTraits(sizeModel: .webp)
        traits.keepsAnimation = true
        traits.scoreModel = .webp
        return traits
    }
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage? {
        try WebPInput.passThrough(file, settings: settings)
    }
    func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding {
        WebPEncoder(lossless: settings.lossless, threads: context.threads)
    }
}

extension ScoreModel {
    /// libwebp on six device photos at 2048 pixels: SSIMULACRA 2 reaches 80 at quality 84-90 and above
    /// (median 87), about 0.8 points per quality there.
    public static let webp = ScoreModel(qualityAt80: 87, pointsPerQuality: 0.8, mosaicScoresAbove: 1.9)
}

extension SizeModel {
    /// libwebp: the VP8 AC step of the quantiser index its quality maps to.
    public static let webp = SizeModel(
        name: "webp",
        scale: { q in
            // libwebp's QualityToCompression, then index = 127 * (1 - compression) (VP8SetSegmentParams).
            let c = Double(q) / 100
            let linear = c < 0.75 ? c * 2 / 3 : 2 * c - 1
            return vp8Step(127 * (1 - pow(linear, 1.0 / 3)))
        },
        sameSetting: { q in q...q },
        typicalSlope: -0.87, probeRatio: 0.97)

    /// RFC 6386's AC dequantisation table as the lines it is made of (within 1%).
    private static func vp8Step(_ index: Double) -> Double {
        switch index {
        case ..<55: 4 + max(index, 0)
        case ..<84: 60 + 2 * (index - 55)
        case ..<103: 119 + 3 * (index - 84)
        case ..<119: 177 + 4 * (index - 103)
        default: 245 + 5 * (min(index, 127) - 119)
        }
    }
}

extension OutputFormat {
    public static let webp = OutputFormat(declaring: "webp")
}
