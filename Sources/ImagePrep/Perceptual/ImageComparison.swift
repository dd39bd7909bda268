import Foundation

/// `imgprep compare`: two files of any format imgprep reads, decoded upright (EXIF orientation applied)
/// by the library's decoders, scored with SSIMULACRA 2 in their own colour profiles.
public enum ImageComparison {
    /// One decoded side of a comparison: upright 8-bit pixels and their ICC profile (nil: sRGB).
    public struct Picture: Sendable {
        public var width: Int { pixels.width }
        public var height: Int { pixels.height }
        let pixels: PixelBuffer
        let profile: [UInt8]?
    }

    /// The pictures differ in size (a score needs the same pixels on both sides).
    public struct SizesDiffer: Error, Sendable, CustomStringConvertible {
        public let original: (width: Int, height: Int)
        public let distorted: (width: Int, height: Int)
        public var description: String {
            "the pictures differ in size: the original is \(original.width)x\(original.height), the distorted one \(distorted.width)x\(distorted.height)"
        }
    }

    /// Decodes one file (the first frame of an animation), refusing more than `maxPixels` pixels.
    public static func decode(_ file: [UInt8], maxPixels: Int = 300_000_000) throws -> Picture {
        let format = try FormatSniffer.sniff(file).get()
        let decoder = format.reader.decoder
        let header = try decoder.header(of: file)
        try header.check(maxPixels: maxPixels)
        let decoded = try decoder.decode(file, options: DecodeOptions(maxPixels: maxPixels))
        let pixels = oriented(decoded.content.rgb(), decoded.orientation)
        guard pixels.width * pixels.height <= maxPixels else {
            throw ImagePrepError(.tooLarge, "the picture decodes as \(pixels.width)x\(pixels.height), over the limit of \(maxPixels) pixels")
        }
        return Picture(pixels: pixels, profile: decoded.isSRGB ? nil : decoded.metadata.icc)
    }

    /// The SSIMULACRA 2 score of `distorted` against `original`; `SizesDiffer` when their sizes differ.
    /// `threads`: how many threads it may use (two at most help; the score does not depend on it).
    public static func score(original: Picture, distorted: Picture, threads: Int = 1) throws -> Double {
        guard original.width == distorted.width, original.height == distorted.height else {
            throw SizesDiffer(original: (original.width, original.height), distorted: (distorted.width, distorted.height))
        }
        return try SSIMULACRA2.score(original: original.pixels, originalProfile: original.profile,
                                     distorted: distorted.pixels, distortedProfile: distorted.profile,
                                     threads: min(max(threads, 1), 2))
    }
}
