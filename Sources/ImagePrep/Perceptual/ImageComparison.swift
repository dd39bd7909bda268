import Foundation

/// `imgprep compare`: two files of any format imgprep reads, decoded upright (EXIF orientation applied)
/// by the library's decoders, scored with SSIMULACRA 2 in their own colour profiles.
public enum ImageComparison {
    /// One decoded side of a comparison: the upright picture as decoded and its ICC profile (nil: sRGB).
    public struct Picture: Sendable {
        public var width: Int { content.width }
        public var height: Int { content.height }
        /// Kept as the decoder gave it (planes, deeper samples), so a resize is convert's resize.
        let content: DecodedPixels
        let profile: [UInt8]?
        var pixels: PixelBuffer { content.rgb() }
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
        let content: DecodedPixels
        if case .animation = decoded.content {
            content = .rgb(oriented(decoded.content.rgb(), decoded.orientation))   // the first frame
        } else {
            content = decoded.content.oriented(decoded.orientation)
        }
        guard content.width * content.height <= maxPixels else {
            throw ImagePrepError(.tooLarge, "the picture decodes as \(content.width)x\(content.height), over the limit of \(maxPixels) pixels")
        }
        return Picture(content: content, profile: decoded.isSRGB ? nil : decoded.metadata.icc)
    }

    /// The pictures' shapes differ by more than rounding a resized edge to whole pixels.
    public struct ShapesDiffer: Error, Sendable, CustomStringConvertible {
        public let original: (width: Int, height: Int)
        public let distorted: (width: Int, height: Int)
        public var description: String {
            "the original is \(original.width)x\(original.height) but the distorted one \(distorted.width)x\(distorted.height): a different aspect ratio, so not a resized copy"
        }
    }

    /// `original` at `distorted`'s size, resampled as `convert --max-dimension` resamples (upright already),
    /// when the two sizes are one aspect ratio: the distorted long edge scales the original, and the other
    /// edge may be off by the pixel that rounding it to whole pixels costs. Unchanged when the sizes agree.
    public static func matched(_ original: Picture, to distorted: Picture, threads: Int = 1) throws -> Picture {
        guard original.width != distorted.width || original.height != distorted.height else { return original }
        let originalLong = max(original.width, original.height), distortedLong = max(distorted.width, distorted.height)
        let scale = Double(distortedLong) / Double(originalLong)
        let sameShape = (original.width >= original.height) == (distorted.width >= distorted.height)
            && abs(Double(original.width) * scale - Double(distorted.width)) <= 1
            && abs(Double(original.height) * scale - Double(distorted.height)) <= 1
        guard sameShape else {
            throw ShapesDiffer(original: (original.width, original.height), distorted: (distorted.width, distorted.height))
        }
        return Picture(content: original.content.resized(width: distorted.width, height: distorted.height, threads: threads),
                       profile: original.profile)
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
