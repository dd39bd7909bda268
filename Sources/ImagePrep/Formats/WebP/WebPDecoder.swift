internal import CWebP

/// Decodes WebP files with libwebp to 8-bit RGB or RGBA: lossy, lossless, with or without alpha, and the
/// first frame of an animation (with a warning). EXIF, XMP and ICC come from the container's chunks.
/// WebP stores no orientation of its own: an EXIF Orientation is applied like a JPEG's.
public struct WebPDecoder: ImageDecoding {
    public init() {}

    public func header(of file: [UInt8]) throws -> ImageHeader {
        var features = WebPBitstreamFeatures()
        let status = file.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw webpError(status, "cannot read the WebP header") }
        let frames = features.has_animation != 0 ? max(HeaderProbe.webpFrameCount(file), 1) : 1
        return ImageHeader(width: Int(features.width), height: Int(features.height), frames: frames)
    }

    public func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        let container = try WebPContainer(file)
        let animated = container.kind == .animated
        guard container.frameCount <= Animation.maxFrames else {
            throw ImagePrepError(.tooLarge, "the WebP animation has more than \(Animation.maxFrames) frames")
        }
        try checkPixelCap(ImageHeader(width: container.width, height: container.height, frames: animated ? container.frameCount : 1),
                          options: options)
        var warnings = container.warnings
        let content: DecodedPixels
        if animated && options.keepsAnimation && container.frameCount > 1 {
            let (frames, loopCount) = try Self.frames(of: container, threads: options.threads, all: true)
            guard frames.count >= 2 else { throw ImagePrepError.library("libwebp", "the animation has fewer frames than it declares") }
            content = .animation(Animation(frames: frames, loopCount: loopCount))
        } else if animated {
            let first = try Self.frames(of: container, threads: options.threads, all: false).frames[0]
            content = .rgb(first.canvas.droppingOpaqueAlpha())
            let dropped = container.frameCount - 1
            if dropped > 0 {
                warnings.append("an animated WebP (\(container.frameCount) frames): converted the first frame; \(dropped) frame\(dropped == 1 ? "" : "s") dropped")
            }
        } else {
            content = .rgb(try Self.still(container, threads: options.threads))
        }
        let metadata = container.metadata
        let orientation = metadata.exif.flatMap(Exif.orientation(in:)).map(ExifOrientation.init(exifValue:)) ?? .up
        return DecodedImage(content: content, metadata: metadata, orientation: orientation, warnings: warnings)
    }

    /// A still picture decoded straight into our own buffer (the pixel cap was checked first).
    private static func still(_ container: WebPContainer, threads: Int) throws -> PixelBuffer {
        let channels = container.hasAlpha ? 4 : 3
        let (width, height) = (container.width, container.height)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch") }
        config.options.use_threads = threads > 1 ? 1 : 0
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let status = pixels.withUnsafeMutableBufferPointer { out in
            config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = out.baseAddress
            config.output.u.RGBA.stride = Int32(width * channels)
            config.output.u.RGBA.size = out.count
            defer { WebPFreeDecBuffer(&config.output) }
            return container.withBytes { WebPDecode($0.baseAddress, $0.count, &config) }
        }
        guard status == VP8_STATUS_OK else { throw webpError(status, "cannot decode the picture") }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The canvas after each frame (or only the first), as libwebpdemux composes it (offsets, blending,
    /// disposal), with each frame's duration, and the loop count.
    private static func frames(of container: WebPContainer, threads: Int, all: Bool) throws -> (frames: [Animation.Frame], loopCount: Int) {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch") }
        options.color_mode = MODE_RGBA
        options.use_threads = threads > 1 ? 1 : 0
        return try container.withBytes { bytes in
            var data = WebPData(bytes: bytes.baseAddress, size: bytes.count)
            guard let decoder = WebPAnimDecoderNew(&data, &options) else {
                throw ImagePrepError.library("libwebp", "cannot read the animation")
            }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { throw ImagePrepError.library("libwebp", "cannot read the animation") }
            let count = container.width * container.height * 4
            var frames: [Animation.Frame] = []
            var previous: Int32 = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var canvas: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                    throw ImagePrepError.library("libwebp", "cannot decode frame \(frames.count + 1) of the animation")
                }
                // The canvas belongs to the decoder: copy it before the next frame overwrites it.
                let rgba = Array(UnsafeBufferPointer(start: canvas, count: count))
                frames.append(Animation.Frame(canvas: PixelBuffer(width: container.width, height: container.height, channels: 4, pixels: rgba),
                                              duration: Int(timestamp) - Int(previous)))
                previous = timestamp
                if !all { break }
            }
            guard !frames.isEmpty else { throw ImagePrepError.library("libwebp", "the animation has no frame") }
            return (frames, Int(info.loop_count))
        }
    }
}
