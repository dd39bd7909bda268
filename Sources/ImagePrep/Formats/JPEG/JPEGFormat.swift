import Foundation

/// JPEG in: libjpeg-turbo, with the EXIF, XMP, ICC, IPTC, comments and gain maps its segments hold.
struct JPEGFormatReader: UnchangedInputReader {
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        bytes.starts(with: [0xFF, 0xD8, 0xFF]) ? .success(.jpeg) : nil
    }
    var descriptor: ReaderDescriptor { Self.descriptor }
    static let descriptor: ReaderDescriptor = {
        var descriptor = ReaderDescriptor(displayName: "JPEG", libraries: [.libjpegTurbo], reads: { $0 == .jpeg }, fileName: { _ in "a JPEG image" },
                                          probeHeader: HeaderProbe.jpeg, describe: { file, _ in try ImageInspector.inspectJPEG(file) })
        // A JPEG's DCT coefficients can be taken over as they are (JPEG XL's lossless recompression).
        descriptor.codedAsDCTBlocks = true
        return descriptor
    }()
    var decoder: any ImageDecoding { JPEGDecoder() }
}

extension SniffedFormat {
    public static let jpeg = SniffedFormat(declaring: "jpeg")
}

/// JPEG out: libjpeg-turbo; the only output that carries an HDR gain map (Ultra HDR), and the only one
/// `--in-place` writes. A JPEG input that needs no new pixels keeps its DCT coefficients (JPEGInput).
struct JPEGFormatWriter: InputKeepingWriter, GainMapWriter {
    var descriptor: FormatDescriptor { Self.descriptor }
    static let descriptor: FormatDescriptor = {
        // Quality 85: what libvips and sharp default to.
        var descriptor = FormatDescriptor(format: .jpeg, displayName: "JPEG", fileExtensions: ["jpg", "jpeg", "jpe"], mediaType: "image/jpeg",
                                          defaultQuality: 85, traits: Self.traits, libraries: [.libjpegTurbo]) { $0 == .jpeg }
        descriptor.names = ["jpeg", "jpg"]
        descriptor.replacesInPlace = true
        descriptor.options = [Self.progressive]
        return descriptor
    }()
    static var traits: FormatTraits {
        var traits = FormatTraits(sizeModel: .jpeg)
        traits.keepsAlpha = false
        traits.metadataLimits = MetadataLimits(exifBytes: JPEGSegment.maxEXIFSize, xmpBytes: JPEGSegment.maxXMPSize)
        // IPTC and comments go back where a JPEG keeps them (APP13, COM), byte for byte.
        traits.carriedMetadata = Set(MetadataBlock.allCases)
        traits.carriesGainMap = true
        traits.subsamplesChroma = true
        traits.scoreModel = .jpeg
        return traits
    }
    static let progressive = FormatOptionDeclaration.flag("progressive", help: "write progressive JPEG")
    func keepingInput(_ file: [UInt8], settings: inout ConversionSettings, notes: inout [String]) throws -> PreparedImage? {
        try JPEGInput.prepare(file, settings: &settings)
    }
    func encoder(for settings: ConversionSettings, context: EncoderContext) -> any ImageEncoding {
        var jpeg = settings.jpegSettings(searching: context.searching)
        jpeg.transposedQuantization = context.turnedBlockGrid
        return JPEGEncoder(settings: jpeg)
    }
    func gainMapEncoder(base: any ImageEncoding, gainMap: GainMap, pictureSize: (width: Int, height: Int),
                        threads: Int) -> any ImageEncoding {
        GainMapJPEGEncoder(base: base, gainMap: gainMap, pictureSize: pictureSize, threads: threads)
    }
    func writtenGainMap(in output: [UInt8]) -> WrittenGainMap? { UltraHDRContainer.written(in: output) }
}

extension SizeModel {
    /// libjpeg: the quantiser scale (jpeg_quality_scaling); photos fall roughly as scale^-0.55.
    public static let jpeg = SizeModel(
        name: "jpeg",
        // jpeg_quality_scaling in percent, floored so logs stay finite.
        scale: { q in max(q < 50 ? 5000 / Double(q) : Double(200 - 2 * q), 0.5) },
        sameSetting: { q in q...q },
        typicalSlope: -0.55, probeRatio: 1.01)
}

extension ScoreModel {
    /// libjpeg at 4:2:0 on the 11 device photos at 2048 pixels: SSIMULACRA 2 reaches 80 at quality 74.6-86.3
    /// (median 82), 0.37-1.0 points per quality there (a steeper prior slope costs no more trials: 3.0 a
    /// picture, replayed on those curves); 4:4:4, tried too, reaches 80 1.6-6.1 qualities lower (median 3.4).
    public static let jpeg = ScoreModel(qualityAt80: 82, pointsPerQuality: 0.9, searchesChromaLayouts: true, otherLayoutBelow: 3,
                                        mosaicScoresAbove: 1.9)
}

extension OutputFormat {
    public static let jpeg = OutputFormat(declaring: "jpeg")
}
