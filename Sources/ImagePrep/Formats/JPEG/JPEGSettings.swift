/// How a JPEG is encoded, apart from its quality.
public struct JPEGSettings: Sendable, Equatable, Codable {
    /// Chroma resolution: .s420 halves it both ways (smallest files), .s444 keeps it all.
    public enum Subsampling: Sendable, Equatable, Codable { case s420, s422, s444 }

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
