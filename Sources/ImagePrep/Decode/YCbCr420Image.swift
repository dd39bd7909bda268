/// 8-bit Y'CbCr 4:2:0 with the BT.601 matrix, as HEVC and AV1 decoders hand most photos out: exactly
/// what a 4:2:0 JPEG stores. Kept as planes, a picture that needs no resize or rotation goes to the
/// JPEG encoder without the round trip through RGB (and its 36 MB per 12 MP).
public struct YCbCr420Image: Sendable {
    public let width: Int
    public let height: Int
    /// Full range (0...255) or video range (16...235, 16...240).
    public let fullRange: Bool
    /// The decoder's own buffers, read in place: copying the planes would cost 18 MB per 12 MP.
    let planes: DecodedPlanes

    /// Interleaved RGB, for the stages that need it (resize, PNG, 4:4:4 JPEG).
    public func rgb() -> PixelBuffer {
        YCbCrToRGB(matrix: 6, fullRange: fullRange).convert(
            UInt8.self, width: width, height: height, luma: planes.luma, chroma: (planes.cb, planes.cr), xShift: 1, yShift: 1)
    }
}

/// Keeps a decoded image alive for as long as its planes are read.
final class DecodedPlanes: @unchecked Sendable {  // the C image is never written after decoding and is released once, in deinit
    let luma: YCbCrToRGB.Plane
    let cb: YCbCrToRGB.Plane
    let cr: YCbCrToRGB.Plane
    private let owner: AnyObject

    /// `owner` keeps the memory behind the planes alive (a HeifImage or a CodecBuffer).
    init(luma: YCbCrToRGB.Plane, cb: YCbCrToRGB.Plane, cr: YCbCrToRGB.Plane, owner: AnyObject) {
        self.luma = luma
        self.cb = cb
        self.cr = cr
        self.owner = owner
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
