/// A decoded picture in whichever form the decoder produced.
public enum DecodedPixels: Sendable {
    case rgb(PixelBuffer)
    /// libheif's planar RGB, read in place.
    case rgbPlanes(RGBPlanes)
    /// A 4:2:0 JPEG's own planes, for re-encoding without colour conversion.
    case ycbcr420(YCbCr420Image)
    /// Every frame of an animation, composited (only for encoders that keep animations).
    case animation(Animation)

    public var width: Int {
        switch self {
        case .rgb(let image): image.width
        case .rgbPlanes(let image): image.width
        case .ycbcr420(let image): image.width
        case .animation(let animation): animation.width
        }
    }

    public var height: Int {
        switch self {
        case .rgb(let image): image.height
        case .rgbPlanes(let image): image.height
        case .ycbcr420(let image): image.height
        case .animation(let animation): animation.height
        }
    }

    /// Interleaved RGB(A) pixels, converting planes if need be (an animation's first frame).
    public func rgb() -> PixelBuffer {
        switch self {
        case .rgb(let image): image
        case .rgbPlanes(let image): image.rgb()
        case .ycbcr420(let image): image.rgb()
        case .animation(let animation): animation.frames[0].canvas
        }
    }
}

/// One plane of 8-bit (or, for deeper sources, 16-bit) samples and the distance in bytes between its rows.
struct SamplePlane {
    var base: UnsafeRawPointer
    var stride: Int

    func row(_ index: Int) -> UnsafePointer<UInt8> { (base + index * stride).assumingMemoryBound(to: UInt8.self) }
}

/// Three planes (Y', Cb, Cr or R, G, B) and whatever keeps their memory alive.
final class DecodedPlanes: @unchecked Sendable {  // the planes are never written after decoding; the owner frees them once, in deinit
    let planes: [SamplePlane]
    private let owner: AnyObject

    /// `owner` keeps the memory behind the planes alive (a HeifImage, a CodecBuffer or a PlaneStorage).
    init(_ planes: [SamplePlane], owner: AnyObject) {
        precondition(planes.count == 3, "three planes")
        self.planes = planes
        self.owner = owner
    }
}

/// Owns planes we resampled ourselves.
final class PlaneStorage {
    let pointer: UnsafeMutablePointer<UInt8>

    init(count: Int) { pointer = .allocate(capacity: count) }
    deinit { pointer.deallocate() }
}
