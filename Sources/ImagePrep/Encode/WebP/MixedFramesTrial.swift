internal import CWebP

/// Whether an animation's frames are worth trying lossless as well as lossy. libwebp tries both ways on
/// every frame of fewer than 194 colours, and on a dithered photo a lossless frame never wins: that
/// trial cost four times the CPU of the lossy encode on a photo pan of 66 colours, for the same bytes.
/// So the first frame is encoded both ways, quickly (method 0, lossless at effort 0), and mixed frames
/// are kept only when its lossless size is at most `ratio` times its lossy size. Measured on 240x180
/// photo pans and the animated test fixtures: photos 3.1-4.4, drawn animations 0.1-1.2, so 2 keeps
/// every animation whose frames libwebp writes lossless (and the decision depends on the pixels only).
enum MixedFramesTrial {
    static let ratio = 2

    static func worthwhile(_ frame: PixelBuffer, quality: Int) throws -> Bool {
        let lossless = try encodedSize(frame, quality: 0, lossless: true)
        let lossy = try encodedSize(frame, quality: quality, lossless: false)
        return lossless <= ratio * lossy
    }

    /// The bytes libwebp writes for `image` at method 0, counted, not kept.
    private static func encodedSize(_ image: PixelBuffer, quality: Int, lossless: Bool) throws -> Int {
        var config = try WebPEncoder.config(quality: max(quality, 1), lossless: lossless, threads: 1)
        config.quality = Float(quality)
        config.method = 0
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch", kind: .unsupported) }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = lossless ? 1 : 0
        let imported = image.pixels.withUnsafeBufferPointer { pixels in
            image.hasAlpha ? WebPPictureImportRGBA(&picture, pixels.baseAddress, Int32(image.rowBytes))
                           : WebPPictureImportRGB(&picture, pixels.baseAddress, Int32(image.rowBytes))
        }
        guard imported != 0 else { throw WebPEncoder.encodeError(picture.error_code) }
        var size = 0
        let encoded = withUnsafeMutablePointer(to: &size) { counter in
            picture.custom_ptr = UnsafeMutableRawPointer(counter)
            picture.writer = { _, count, picture in
                picture?.pointee.custom_ptr?.assumingMemoryBound(to: Int.self).pointee += count
                return 1
            }
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0 else { throw WebPEncoder.encodeError(picture.error_code) }
        return size
    }
}
