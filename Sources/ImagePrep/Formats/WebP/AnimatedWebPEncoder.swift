internal import CWebP

/// Encodes an animation to an animated WebP with libwebpmux's WebPAnimEncoder: each composited frame
/// is handed over whole with its timestamp, and the encoder finds the rectangle that changed, whether
/// to blend or replace it, and merges identical consecutive frames (adding their durations). The
/// metadata chunks are then added as for a still WebP.
struct AnimatedWebPEncoder {
    /// WebPAnimEncoder's choices about frame types, and libwebp's effort (see `standard`).
    struct Strategy: Equatable {
        /// Tries every way to code each frame (both disposals of the previous frame) and keeps the smallest.
        var minimizeSize: Bool
        /// Lets each frame be lossy or lossless, whichever is smaller (lossy encodes only; libwebp tries
        /// lossless only for frames of fewer than 194 colours, lossy only for 31 or more), when the
        /// first frame says lossless can win (`MixedFramesTrial`).
        var allowMixed: Bool
        /// libwebp's method (0 fastest ... 6 smallest) for the frames of a lossy animation.
        var lossyMethod: Int32

        /// What imgprep writes: frames lossy or lossless, whichever is smaller, at method 3, no forced
        /// keyframes (libwebp's default) and no `minimize_size`. On 14 GIFs at quality 80 (docs/formats.md
        /// has the table): the bytes and PSNR of gif2webp -lossy -q 80 on photos, smaller and lossless
        /// frames on synthetic animations; `minimize_size` cost four times the CPU for 0.5% fewer bytes,
        /// forced keyframes cost CPU and bytes, and method 5 was 4% smaller at equal PSNR but made the
        /// lossless trials of few-colour photo frames half as costly again.
        static let standard = Strategy(minimizeSize: false, allowMixed: true, lossyMethod: 3)
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
        let mixed = try strategy.allowMixed && !lossless && MixedFramesTrial.worthwhile(animation.frames[0].canvas, quality: quality)
        options.allow_mixed = mixed ? 1 : 0
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &options) else {
            throw ImagePrepError.library("libwebpmux", "cannot start the animation encoder", kind: .unsupported)
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = try WebPEncoder.config(quality: quality, lossless: lossless, threads: threads)
        if !lossless { config.method = strategy.lossyMethod }

        var timestamp = 0
        for frame in animation.frames {
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch", kind: .unsupported) }
            defer { WebPPictureFree(&picture) }
            try WebPEncoder.load(frame.canvas, argb: true, into: &picture)   // WebPAnimEncoder compares frames as ARGB
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
