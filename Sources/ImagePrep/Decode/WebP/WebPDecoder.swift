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
        return ImageHeader(width: Int(features.width), height: Int(features.height))
    }

    public func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        let container = try WebPContainer(file)
        try checkPixelCap(ImageHeader(width: container.width, height: container.height), options: options)
        var warnings = container.warnings
        let pixels: PixelBuffer
        if container.kind == .animated {
            pixels = try Self.firstFrame(of: container, threads: options.threads)
            warnings.append("an animated WebP (\(container.frameCount) frames): converted the first frame")
        } else {
            pixels = try Self.still(container, threads: options.threads)
        }
        let metadata = container.metadata
        let orientation = metadata.exif.flatMap(Exif.orientation(in:)).map(ExifOrientation.init(exifValue:)) ?? .up
        return DecodedImage(pixels: pixels, metadata: metadata, orientation: orientation, warnings: warnings)
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

    /// The canvas after the first frame, as libwebpdemux composes it (offsets, blending, background).
    private static func firstFrame(of container: WebPContainer, threads: Int) throws -> PixelBuffer {
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
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                throw ImagePrepError.library("libwebp", "cannot decode the first frame")
            }
            // The canvas belongs to the decoder: copy it before the decoder goes.
            let count = container.width * container.height * 4
            let rgba = Array(UnsafeBufferPointer(start: canvas, count: count))
            let opaque = stride(from: 3, to: count, by: 4).allSatisfy { rgba[$0] == 255 }
            guard opaque else { return PixelBuffer(width: container.width, height: container.height, channels: 4, pixels: rgba) }
            var rgb = [UInt8](); rgb.reserveCapacity(count / 4 * 3)
            for i in stride(from: 0, to: count, by: 4) { rgb += rgba[i..<i + 3] }
            return PixelBuffer(width: container.width, height: container.height, channels: 3, pixels: rgb)
        }
    }
}
