/// Returns `image` transformed so that a viewer ignoring EXIF orientation shows it upright.
public func oriented(_ image: PixelBuffer, _ orientation: ExifOrientation) -> PixelBuffer {
    if orientation == .up { return image }
    let (outWidth, outHeight) = orientation.swapsDimensions ? (image.height, image.width) : (image.width, image.height)
    let walk = SourceWalk(orientation, width: image.width, height: image.height, rowPixels: image.width)

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

/// Every orientation is an affine walk over the source: output pixel (x, y) reads source pixel
/// `origin + x * stepX + y * stepY` (all in pixels), from where output (0, 0) comes from and which
/// way the source is traversed along an output row and column.
struct SourceWalk {
    let origin, stepX, stepY, width, height: Int

    /// The walk over a `width` x `height` source whose rows are `rowPixels` apart.
    init(_ orientation: ExifOrientation, width w: Int, height h: Int, rowPixels r: Int) {
        switch orientation {
        case .up:            (origin, stepX, stepY) = (0, 1, r)
        case .upMirrored:    (origin, stepX, stepY) = (w - 1, -1, r)
        case .down:          (origin, stepX, stepY) = ((h - 1) * r + w - 1, -1, -r)
        case .downMirrored:  (origin, stepX, stepY) = ((h - 1) * r, 1, -r)
        case .leftMirrored:  (origin, stepX, stepY) = (0, r, 1)                      // transpose
        case .right:         (origin, stepX, stepY) = ((h - 1) * r, -r, 1)           // 90° clockwise
        case .rightMirrored: (origin, stepX, stepY) = ((h - 1) * r + w - 1, -r, -1)  // transverse
        case .left:          (origin, stepX, stepY) = (w - 1, r, -1)                 // 90° counter-clockwise
        }
        (width, height) = orientation.swapsDimensions ? (h, w) : (w, h)
    }

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

extension YCbCr420Image {
    /// Each plane turned on its own, so a turned JPEG is re-encoded from its own samples. Needs even
    /// sides: an odd one would move the last chroma sample's half-covered column to the other edge.
    func oriented(_ orientation: ExifOrientation) -> YCbCr420Image? {
        guard width % 2 == 0, height % 2 == 0 else { return nil }
        if orientation == .up { return self }
        let (outWidth, outHeight) = orientation.swapsDimensions ? (height, width) : (width, height)
        let storage = PlaneStorage(count: YCbCr420Image.packedCount(width: width, height: height))
        let sizes = [(width, height), (width / 2, height / 2), (width / 2, height / 2)]
        var offset = 0, turnedLayout = layout
        turnedLayout.siting = layout.siting.oriented(orientation)
        withExtendedLifetime(planes) {
            for (plane, size) in zip(planes.planes, sizes) {
                let walk = SourceWalk(orientation, width: size.0, height: size.1, rowPixels: plane.stride)
                walk.copy(from: plane.base, to: UnsafeMutableRawPointer(storage.pointer + offset), pixel: UInt8.self)
                offset += size.0 * size.1
            }
        }
        return YCbCr420Image(packed: storage.pointer, width: outWidth, height: outHeight, layout: turnedLayout, owner: storage)
    }
}

extension DecodedPixels {
    /// The picture turned upright: 4:2:0 planes stay planes where they can.
    func oriented(_ orientation: ExifOrientation) -> DecodedPixels {
        if orientation == .up { return self }
        if case .ycbcr420(let image) = self, let turned = image.oriented(orientation) { return .ycbcr420(turned) }
        if case .animation(let animation) = self { return .animation(animation.mapFrames { ImagePrep.oriented($0, orientation) }) }
        return .rgb(ImagePrep.oriented(rgb(), orientation))
    }
}
