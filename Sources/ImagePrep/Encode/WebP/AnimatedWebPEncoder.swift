internal import CWebP

/// Encodes an animation to an animated WebP with libwebpmux's WebPAnimEncoder: each composited frame
/// is handed over whole with its timestamp, and the encoder finds the rectangle that changed, whether
/// to blend or replace it, and merges identical consecutive frames (adding their durations). The
/// metadata chunks are then added as for a still WebP.
struct AnimatedWebPEncoder {
    /// WebPAnimEncoder's choices about keyframes and frame types (see `standard`).
    struct Strategy: Equatable {
        /// Tries every way to code each frame (keyframe or not, each disposal and blend) and keeps the smallest.
        var minimizeSize: Bool
        /// Lets each frame be lossy or lossless, whichever is smaller (lossy encodes only).
        var allowMixed: Bool

        /// What imgprep writes. On ten GIFs at quality 80 (photo pans, a sprite over a photo, a cartoon,
        /// dithered synthetics), trying every way to code each frame and letting each frame be lossy or
        /// lossless was the smallest or equal on every file: 426 KB in all, against 432 KB with libwebp's
        /// defaults and 445 KB for gif2webp -lossy (keyframes every 3-5 frames), at equal or higher PSNR;
        /// lossless 3.2% smaller than without it. It takes about three times as long as without.
        /// Keyframe spacing then does not apply (forced keyframes every 1-10 frames were larger).
        static let standard = Strategy(minimizeSize: true, allowMixed: true)
    }

    var quality: Int
    var lossless: Bool
    var threads: Int
    var strategy: Strategy

    func encode(_ animation: Animation, metadata: ImageMetadata) throws -> [UInt8] {
        let (width, height) = (animation.width, animation.height)
        let total = animation.totalDuration
        guard total <= Int(Int32.max) else {
            throw ImagePrepError(.unsupported, "the animation lasts \(total / 1000) s, longer than WebP's timestamps hold")
        }
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0 else { throw ImagePrepError.library("libwebpmux", "version mismatch", kind: .unsupported) }
        options.anim_params.loop_count = Int32(clamping: animation.loopCount)
        options.minimize_size = strategy.minimizeSize ? 1 : 0
        options.allow_mixed = strategy.allowMixed && !lossless ? 1 : 0
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
            throw ImagePrepError.library("libwebpmux", "cannot start the animation encoder", kind: .unsupported)
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = try WebPEncoder.config(quality: quality, lossless: lossless, threads: threads)

        var timestamp = 0
        for frame in animation.frames {
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch", kind: .unsupported) }
            defer { WebPPictureFree(&picture) }
            picture.width = Int32(width)
            picture.height = Int32(height)
            picture.use_argb = 1   // WebPAnimEncoder compares frames as ARGB
            let image = frame.canvas
            let imported = image.pixels.withUnsafeBufferPointer { pixels in
                image.hasAlpha ? WebPPictureImportRGBA(&picture, pixels.baseAddress, Int32(image.rowBytes))
                               : WebPPictureImportRGB(&picture, pixels.baseAddress, Int32(image.rowBytes))
            }
            guard imported != 0 else { throw WebPEncoder.encodeError(picture.error_code) }
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(timestamp), &config) != 0 else { throw Self.error(encoder) }
            timestamp += frame.duration
        }
        // The end time gives the last frame its duration.
        guard WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0 else { throw Self.error(encoder) }
        var assembled = WebPData()
        defer { WebPDataClear(&assembled) }
        guard WebPAnimEncoderAssemble(encoder, &assembled) != 0 else { throw Self.error(encoder) }
        guard let bytes = assembled.bytes, assembled.size > 0 else {
            throw ImagePrepError.library("libwebpmux", "assembled no data", kind: .unsupported)
        }
        return try Self.addingChunks(UnsafeBufferPointer(start: bytes, count: assembled.size), metadata: metadata)
    }

    /// The animated file with the ICCP, EXIF and XMP chunks added (libwebpmux places them and sets the VP8X flags).
    private static func addingChunks(_ file: UnsafeBufferPointer<UInt8>, metadata: ImageMetadata) throws -> [UInt8] {
        let chunks = WebPEncoder.metadataChunks(metadata)
        guard !chunks.isEmpty else { return Array(file) }
        var data = WebPData(bytes: file.baseAddress, size: file.count)
        guard let mux = WebPMuxCreate(&data, 1) else { throw ImagePrepError.library("libwebpmux", "cannot reopen the animation", kind: .unsupported) }
        defer { WebPMuxDelete(mux) }
        return try WebPEncoder.assemble(mux, adding: chunks)
    }

    private static func error(_ encoder: OpaquePointer) -> ImagePrepError {
        let message = WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? ""
        return ImagePrepError.library("libwebpmux", "cannot encode the animation: \(message)", kind: .unsupported)
    }
}
