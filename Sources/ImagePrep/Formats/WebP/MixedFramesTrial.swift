internal import CWebP

/// Whether an animation's frames are worth trying lossless as well as lossy. libwebp tries both ways on
/// every frame of fewer than 194 colours, and on a photo quantised to a GIF palette a lossless frame
/// never wins: that trial cost four times the CPU of the lossy encode on a photo pan of 66 colours, for
/// the same bytes. So when the first frame has fewer than 194 colours it is encoded both ways, quickly
/// (lossy at method 0, lossless at method 1 and effort 0), and mixed frames are kept only when its
/// lossless size is at most 1.5 times its lossy size. Measured on 240x180 photo pans (64 to 256
/// colours) and the animated test fixtures: at quality 80, photos 1.74 to 4.4 and drawn animations 0.19
/// to 1.02 (libwebp writes lossless frames for all of those but the one at 1.02); at quality 95 some
/// photos come under 1.5 and keep mixed frames. Lossless at method 0 missed the palette of a drawn
/// animation (6x larger); effort 25 cost three times effort 0 (20 ms on a 240x180 frame) and separated
/// the two kinds no better. The decision depends on the pixels and the quality only.
enum MixedFramesTrial {
    /// libwebp tries a frame lossless only below this many colours.
    static let losslessColours = 194

    static func worthwhile(_ frame: PixelBuffer, quality: Int) throws -> Bool {
        // A first frame libwebp would not try lossless costs nothing to leave mixed: later frames are
        // tried only where the rectangle that changed has few colours (a drawn sprite on a photo).
        guard colours(frame, upTo: losslessColours) < losslessColours else { return true }
        let lossless = try encodedSize(frame, quality: 0, method: 1, lossless: true)
        let lossy = try encodedSize(frame, quality: quality, method: 0, lossless: false)
        return 2 * lossless <= 3 * lossy
    }

    /// The number of distinct pixel values in `image`, counting stops at `limit`.
    static func colours(_ image: PixelBuffer, upTo limit: Int) -> Int {
        var seen = Set<UInt32>(minimumCapacity: limit)
        image.pixels.withUnsafeBufferPointer { bytes in
            var at = 0
            while at < bytes.count && seen.count < limit {
                var value = UInt32(bytes[at]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2])
                if image.channels == 4 { value |= UInt32(bytes[at + 3]) << 24 }
                seen.insert(value)
                at += image.channels
            }
        }
        return seen.count
    }

    /// The bytes libwebp writes for `image`, counted, not kept.
    private static func encodedSize(_ image: PixelBuffer, quality: Int, method: Int32, lossless: Bool) throws -> Int {
        // The shared settings (they take qualities 1...100), then this trial's own effort.
        var config = try WebPEncoder.config(quality: 1, lossless: lossless, threads: 1)
        config.quality = Float(quality)
        config.method = method
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch", kind: .unsupported) }
        defer { WebPPictureFree(&picture) }
        try WebPEncoder.load(image, argb: lossless, into: &picture)
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
