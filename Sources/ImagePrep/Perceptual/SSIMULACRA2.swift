import Foundation

/// SSIMULACRA 2 (cloudinary/ssimulacra2): how alike two pictures look to a person, 100 for identical,
/// 90 visually lossless, 80 not noticeable side by side at 1:1, 70 noticeable but not annoying.
///
/// PLACEHOLDER (contract only): the body below is a PSNR stand-in so the quality search can be built
/// against this API; it is replaced by the port of the reference implementation.
public enum SSIMULACRA2 {
    /// Goes into the cache key: a change to the metric changes the bytes `--quality auto` writes.
    public static let version = "placeholder"

    /// Bytes a `Reference` of a `width` x `height` picture holds, plus one scoring's scratch (for the
    /// worker's memory estimate).
    public static func workingBytes(width: Int, height: Int) -> Int { width * height * 4 * 3 * 2 }

    /// Scores one pair (a convenience over `Reference`).
    public static func score(original: PixelBuffer, originalProfile: [UInt8]?,
                             distorted: PixelBuffer, distortedProfile: [UInt8]?) throws -> Double {
        try Reference(original, profile: originalProfile).score(distorted, profile: distortedProfile)
    }

    /// The original prepared once (linear-light pyramid, XYB, its blurred moments) and scored against any
    /// number of candidates of the same size. Immutable after init; `score` allocates only its scratch.
    public final class Reference: Sendable {
        public let width: Int
        public let height: Int
        private let pixels: [UInt8]

        /// `image`: 8-bit RGB or RGBA (straight alpha); `profile`: its ICC profile (nil: sRGB).
        public init(_ image: PixelBuffer, profile: [UInt8]?) throws {
            width = image.width
            height = image.height
            pixels = image.channels == 3 ? image.pixels : PixelBuffer.dropAlpha(image)
        }

        /// The score of `distorted` (same size; else `ImagePrepError(.unsupported)`).
        public func score(_ distorted: PixelBuffer, profile: [UInt8]?) throws -> Double {
            guard distorted.width == width, distorted.height == height else {
                throw ImagePrepError(.unsupported, "the pictures differ in size: \(width)x\(height) and \(distorted.width)x\(distorted.height)")
            }
            let other = distorted.channels == 3 ? distorted.pixels : PixelBuffer.dropAlpha(distorted)
            var sum = 0.0
            for i in 0..<pixels.count { let d = Double(pixels[i]) - Double(other[i]); sum += d * d }
            let mse = sum / Double(max(1, pixels.count))
            let psnr = mse == 0 ? 100 : 10 * log10(255 * 255 / mse)
            return min(100, max(-100, (psnr - 30) * 4 + 60))
        }
    }
}

extension PixelBuffer {
    fileprivate static func dropAlpha(_ image: PixelBuffer) -> [UInt8] {
        var out = [UInt8](); out.reserveCapacity(image.width * image.height * 3)
        for i in stride(from: 0, to: image.pixels.count, by: 4) { out += image.pixels[i..<i + 3] }
        return out
    }
}
