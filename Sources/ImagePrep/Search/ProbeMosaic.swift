/// A sixteenth of a picture (up to a quarter of a small one), as a grid of square crops taken evenly across it and laid side by side
/// at full resolution. Encoded bytes per pixel of the mosaic track those of the whole picture closely
/// (the same texture at the same scale), so a budget search can first be run on the mosaic, for a
/// sixteenth of the cost of a trial, to aim the trials on the whole picture.
struct ProbeMosaic {
    let picture: DecodedPixels
    /// Pixels of the whole picture per pixel of the mosaic (about 16).
    let areaRatio: Double

    /// Crops of 128 pixels (a multiple of the largest block any of our codecs uses: 64 for HEVC CTUs and AV1
    /// superblocks), on the same 64-pixel grid as the picture so a JPEG source's blocks stay aligned; many
    /// small crops sample a picture's mix of flat and detailed areas better than a few big ones (corpus
    /// photos: 3-6% spread, where 256-pixel crops missed by up to 2x).
    static let tile = 128

    /// nil when the picture is too small to be worth it: fewer than 3x3 crops miss too much (2x2 crops
    /// of a 1 MP photo were 20% off), and more than a quarter of a small picture costs too much (its few
    /// probe encodes then cost about one encode of the picture, and save two).
    init?(_ source: DecodedPixels) {
        // An animation's bytes depend on how its frames differ, which crops of one frame cannot tell.
        if case .animation = source { return nil }
        let (width, height, tile) = (source.width, source.height, Self.tile)
        // One crop per 4x4 crops' worth of picture, at least three each way.
        let columns = max(3, Int((Double(width) / Double(4 * tile)).rounded()))
        let rows = max(3, Int((Double(height) / Double(4 * tile)).rounded()))
        guard columns * tile <= width, rows * tile <= height,
              Double(width) * Double(height) >= 4 * Double(columns * rows * tile * tile) else { return nil }
        // Each crop centred in its cell of a columns x rows grid over the picture, then moved onto the grid.
        let xs = (0..<columns).map { ((2 * $0 + 1) * width / (2 * columns) - tile / 2) & ~63 }
        let ys = (0..<rows).map { ((2 * $0 + 1) * height / (2 * rows) - tile / 2) & ~63 }
        let (mosaicWidth, mosaicHeight) = (columns * tile, rows * tile)
        areaRatio = Double(width * height) / Double(mosaicWidth * mosaicHeight)

        /// Copies the crops of one plane (`scale` 2 for 4:2:0 chroma) into a packed plane at `out`.
        func gather(_ plane: SamplePlane, bytesPerPixel: Int, scale: Int, into out: UnsafeMutablePointer<UInt8>) {
            let side = tile / scale, rowBytes = mosaicWidth / scale * bytesPerPixel
            for (r, y0) in ys.enumerated() {
                for (c, x0) in xs.enumerated() {
                    for y in 0..<side {
                        let from = plane.row(y0 / scale + y) + x0 / scale * bytesPerPixel
                        let to = out + (r * side + y) * rowBytes + c * side * bytesPerPixel
                        to.update(from: from, count: side * bytesPerPixel)
                    }
                }
            }
        }

        switch source {
        case .rgb(let image):
            let pixels = [UInt8](unsafeUninitializedCapacity: mosaicWidth * mosaicHeight * image.channels) { out, count in
                image.pixels.withUnsafeBytes { bytes in
                    // A picture of a million pixels has a base address.
                    gather(SamplePlane(base: bytes.baseAddress!, stride: image.rowBytes), bytesPerPixel: image.channels,
                           scale: 1, into: out.baseAddress!)
                }
                count = mosaicWidth * mosaicHeight * image.channels
            }
            picture = .rgb(PixelBuffer(width: mosaicWidth, height: mosaicHeight, channels: image.channels, pixels: pixels))
        case .rgbPlanes(let image):
            let count = mosaicWidth * mosaicHeight
            let storage = PlaneStorage(count: 3 * count)
            withExtendedLifetime(image.planes) {
                for (index, plane) in image.planes.planes.enumerated() {
                    gather(plane, bytesPerPixel: 1, scale: 1, into: storage.pointer + index * count)
                }
            }
            picture = .rgbPlanes(RGBPlanes(packed: storage.pointer, width: mosaicWidth, height: mosaicHeight, owner: storage))
        case .ycbcr420(let image):
            let lumaCount = mosaicWidth * mosaicHeight, chromaCount = lumaCount / 4
            let storage = PlaneStorage(count: YCbCr420Image.packedCount(width: mosaicWidth, height: mosaicHeight))
            withExtendedLifetime(image.planes) {
                gather(image.luma, bytesPerPixel: 1, scale: 1, into: storage.pointer)
                gather(image.cb, bytesPerPixel: 1, scale: 2, into: storage.pointer + lumaCount)
                gather(image.cr, bytesPerPixel: 1, scale: 2, into: storage.pointer + lumaCount + chromaCount)
            }
            picture = .ycbcr420(YCbCr420Image(packed: storage.pointer, width: mosaicWidth, height: mosaicHeight,
                                                layout: image.layout, owner: storage))
        case .animation:
            return nil
        }
    }
}
