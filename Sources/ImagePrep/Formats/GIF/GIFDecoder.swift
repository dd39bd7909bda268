/// Decodes GIFs with giflib: a still picture, or every frame of an animation composited as browsers
/// show it (`GIFCanvas`). The records are walked in Swift first (`GIFStructure`) and the limits checked
/// on them, before giflib decodes or anything is allocated for pixels: --max-pixels counts every frame's
/// canvas, the frames' own rectangles (the LZW work) and at most `Animation.maxFrames` frames.
/// Comments, XMP and an ICC profile (application extensions) become the picture's metadata.
public struct GIFDecoder: ImageDecoding {
    public init() {}

    public func header(of file: [UInt8]) throws -> ImageHeader {
        try Self.structure(of: file).header
    }

    public func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        let gif = try Self.structure(of: file)
        try checkPixelCap(gif.header, options: options)
        let (width, height) = gif.canvas
        let framePixels = gif.images.reduce(0) { $0 + $1.width * $1.height }   // each side < 65536: no overflow
        guard framePixels <= options.maxPixels else {
            throw ImagePrepError(.tooLarge,
                "the GIF's frames hold \(framePixels) pixels in all, over the --max-pixels limit of \(options.maxPixels)")
        }
        var warnings: [String] = []
        if gif.endsEarly {
            warnings.append("the GIF's records are damaged or cut short after frame \(gif.frameCount); the frames before were read")
        }
        let canvas = GIFCanvas(width: width, height: height)
        let outside = gif.images.filter { image in
            let area = canvas.clip(image)
            return area.x.count != image.width || area.y.count != image.height
        }.count
        if outside > 0 {
            warnings.append("\(outside) GIF frame\(outside == 1 ? " reaches" : "s reach") outside the \(width)x\(height) logical screen; clipped to it")
        }

        let animated = gif.frameCount > 1 && options.keepsAnimation
        let canvases = try Self.composite(file, gif: gif, canvas: canvas, frames: animated ? gif.frameCount : 1)
        let metadata = gif.metadata(warnings: &warnings)
        if animated {
            let frames = zip(canvases, gif.images).map { pixels, image in
                Animation.Frame(canvas: pixels, duration: Animation.playedDuration(centiseconds: image.delayCentiseconds))
            }
            return DecodedImage(content: .animation(Animation(frames: frames, loopCount: Self.webpLoopCount(gif.loopCount))),
                                metadata: metadata, orientation: .up, warnings: warnings)
        }
        if gif.frameCount > 1 {
            let dropped = gif.frameCount - 1
            warnings.append("an animated GIF (\(gif.frameCount) frames): converted the first frame; \(dropped) frame\(dropped == 1 ? "" : "s") dropped")
        }
        return DecodedImage(pixels: canvases[0].droppingOpaqueAlpha(), metadata: metadata, orientation: .up, warnings: warnings)
    }

    /// The records, or why they are not a GIF imgprep reads.
    static func structure(of file: [UInt8]) throws -> GIFStructure {
        guard let gif = GIFStructure(file, maxImages: Animation.maxFrames) else {
            throw ImagePrepError(.corrupt, "the GIF's screen descriptor is cut short")
        }
        guard !gif.hasMoreImages else {
            throw ImagePrepError(.tooLarge, "the GIF has more than \(Animation.maxFrames) frames")
        }
        guard !gif.images.isEmpty else { throw ImagePrepError(.corrupt, "the GIF holds no whole frame") }
        let (width, height) = gif.canvas
        guard width > 0, height > 0 else { throw ImagePrepError(.corrupt, "the GIF's logical screen is \(width)x\(height)") }
        if let bare = gif.images.firstIndex(where: { $0.localPaletteSize == nil }), gif.globalPaletteSize == nil {
            throw ImagePrepError(.corrupt, "GIF frame \(bare + 1) has no colour table (neither its own nor a global one)")
        }
        return gif
    }

    /// The canvas after each of the first `frames` frames.
    private static func composite(_ file: [UInt8], gif: GIFStructure, canvas: GIFCanvas, frames: Int) throws -> [PixelBuffer] {
        let reader = try GIFReader(file)
        var canvas = canvas
        var out: [PixelBuffer] = []
        for (number, image) in gif.images.prefix(frames).enumerated() {
            let record = try reader.nextImage()
            // giflib read the same descriptor as our walk (or the two disagree on where the records are).
            guard (record.left, record.top, record.width, record.height) == (image.left, image.top, image.width, image.height) else {
                throw ImagePrepError(.corrupt, "GIF frame \(number + 1): giflib and the record walk disagree about its descriptor")
            }
            if image.width == 0 || image.height == 0 {
                try reader.skipImageData()
            } else {
                try canvas.draw(image, palette: record.palette) { try reader.readRow(into: &$0) }
            }
            out.append(PixelBuffer(width: canvas.width, height: canvas.height, channels: 4, pixels: canvas.pixels))
            canvas.dispose(image)
        }
        return out
    }

    /// GIF's loop count in WebP's meaning, as gif2webp writes it: no NETSCAPE extension plays once; N
    /// repeats after the first play, so N + 1 plays (0 stays forever, 65535 stays the most WebP holds).
    static func webpLoopCount(_ gifLoopCount: Int?) -> Int {
        guard let count = gifLoopCount else { return 1 }
        return count == 0 || count == 65535 ? count : count + 1
    }
}
