/// 8-bit Y'CbCr 4:2:0 with the BT.601 matrix, as HEVC and AV1 decoders hand most photos out: exactly
/// what a 4:2:0 JPEG stores. Kept as planes, a picture that needs no resize or rotation goes to the
/// JPEG encoder without the round trip through RGB (and its 36 MB per 12 MP).
public struct YCbCr420Image: Sendable {
    public var width: Int
    public var height: Int
    /// width × height samples.
    public var luma: [UInt8]
    /// chromaWidth × chromaHeight samples each.
    public var cb: [UInt8]
    public var cr: [UInt8]
    /// Full range (0...255) or video range (16...235, 16...240).
    public var fullRange: Bool

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// Interleaved RGB, for the stages that need it (resize, PNG, 4:4:4 JPEG).
    public func rgb() -> PixelBuffer {
        luma.withUnsafeBufferPointer { y in
            cb.withUnsafeBufferPointer { cb in
                cr.withUnsafeBufferPointer { cr in
                    YCbCrToRGB(matrix: 6, fullRange: fullRange).convert(
                        UInt8.self, width: width, height: height,
                        luma: .init(base: y.baseAddress!, stride: width),  // non-empty: width, height > 0
                        chroma: (.init(base: cb.baseAddress!, stride: chromaWidth), .init(base: cr.baseAddress!, stride: chromaWidth)),
                        xShift: 1, yShift: 1)
                }
            }
        }
    }
}

/// A decoded picture in whichever form the decoder produced.
public enum DecodedPixels: Sendable {
    case rgb(PixelBuffer)
    case ycbcr420(YCbCr420Image)

    public var width: Int {
        switch self {
        case .rgb(let image): image.width
        case .ycbcr420(let image): image.width
        }
    }

    public var height: Int {
        switch self {
        case .rgb(let image): image.height
        case .ycbcr420(let image): image.height
        }
    }

    /// RGB(A) pixels, converting planes if need be.
    public func rgb() -> PixelBuffer {
        switch self {
        case .rgb(let image): image
        case .ycbcr420(let image): image.rgb()
        }
    }
}
