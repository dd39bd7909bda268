/// How a JPEG is encoded, apart from its quality.
public struct JPEGSettings: Sendable, Equatable, Codable {
    public typealias Subsampling = ChromaSubsampling

    public var subsampling: Subsampling
    /// Optimal Huffman tables: a few percent smaller for an extra pass over the coefficients.
    public var optimizeHuffman: Bool
    /// Progressive scans (always with optimal Huffman tables).
    public var progressive: Bool
    /// Write the JFIF APP0 header right after SOI.
    public var writeJFIF: Bool
    /// Quantization tables transposed. A JPEG source turned by 90° then has its 8x8 blocks requantized
    /// exactly as they would be unturned (libjpeg's tables are not symmetric), so it compresses as well
    /// as a re-encode that keeps the stored pixels and the Orientation tag.
    public var transposedQuantization = false

    public init(subsampling: Subsampling = .s420, optimizeHuffman: Bool = true,
                progressive: Bool = false, writeJFIF: Bool = true) {
        self.subsampling = subsampling
        self.optimizeHuffman = optimizeHuffman
        self.progressive = progressive
        self.writeJFIF = writeJFIF
    }
}

extension ConversionSettings {
    /// The JPEG settings for an encode, with subsampling resolved.
    func jpegSettings(searching: Bool) -> JPEGSettings {
        JPEGSettings(subsampling: chromaSubsampling(searching: searching), progressive: formatOptions.progressiveJPEG)
    }
}

extension FormatOptions {
    /// `--progressive`.
    var progressiveJPEG: Bool { flag(JPEGFormatWriter.progressive) }
}
