/// Returns `image` transformed so that a viewer ignoring EXIF orientation shows it upright.
public func oriented(_ image: PixelBuffer, _ orientation: ExifOrientation) -> PixelBuffer {
    if orientation == .up { return image }
    let w = image.width, h = image.height
    let (outWidth, outHeight) = orientation.swapsDimensions ? (h, w) : (w, h)

    // Every orientation is an affine walk over the source: output pixel (x, y) reads source
    // pixel `origin + x * stepX + y * stepY` (all in pixels). Derived from where output (0, 0)
    // comes from and which way the source is traversed along an output row and column.
    let (origin, stepX, stepY): (Int, Int, Int)
    switch orientation {
    case .up:            (origin, stepX, stepY) = (0, 1, w)
    case .upMirrored:    (origin, stepX, stepY) = (w - 1, -1, w)
    case .down:          (origin, stepX, stepY) = ((h - 1) * w + w - 1, -1, -w)
    case .downMirrored:  (origin, stepX, stepY) = ((h - 1) * w, 1, -w)
    case .leftMirrored:  (origin, stepX, stepY) = (0, w, 1)                      // transpose
    case .right:         (origin, stepX, stepY) = ((h - 1) * w, -w, 1)           // 90° clockwise
    case .rightMirrored: (origin, stepX, stepY) = ((h - 1) * w + w - 1, -w, -1)  // transverse
    case .left:          (origin, stepX, stepY) = (w - 1, w, -1)                 // 90° counter-clockwise
    }
    let walk = SourceWalk(origin: origin, stepX: stepX, stepY: stepY, width: outWidth, height: outHeight)

    let pixels = [UInt8](unsafeUninitializedCapacity: image.pixels.count) { out, count in
        image.pixels.withUnsafeBufferPointer { src in
            let s = UnsafeRawPointer(src.baseAddress!), d = UnsafeMutableRawPointer(out.baseAddress!)
            if image.channels == 4 {
                walk.copy(from: s, to: d, pixel: UInt32.self)
            } else {
                walk.copy(from: s, to: d, pixel: RGB.self)
            }
        }
        count = image.pixels.count
    }
    return PixelBuffer(width: outWidth, height: outHeight, channels: image.channels, pixels: pixels)
}

/// Three bytes moved as one value, so the copy loop is the same for RGB and RGBA.
private struct RGB: BitwiseCopyable { var r, g, b: UInt8 }

private struct SourceWalk {
    let origin, stepX, stepY, width, height: Int

    /// Square tiles keep both the rows being read and the rows being written in L1 when a
    /// 90° turn makes one of them stride across the whole image.
    private static let tile = 64

    func copy<Pixel: BitwiseCopyable>(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, pixel: Pixel.Type) {
        // Raw unaligned loads/stores: the bytes are bound to UInt8, not to the pixel type.
        let size = MemoryLayout<Pixel>.stride
        let sourceStep = stepX * size
        for tileY in stride(from: 0, to: height, by: Self.tile) {
            let yEnd = min(tileY + Self.tile, height)
            for tileX in stride(from: 0, to: width, by: Self.tile) {
                let xEnd = min(tileX + Self.tile, width)
                for y in tileY..<yEnd {
                    var s = (origin + tileX * stepX + y * stepY) * size
                    var d = (y * width + tileX) * size
                    for _ in tileX..<xEnd {
                        destination.storeBytes(of: source.loadUnaligned(fromByteOffset: s, as: Pixel.self),
                                               toByteOffset: d, as: Pixel.self)
                        s &+= sourceStep
                        d &+= size
                    }
                }
            }
        }
    }
}
