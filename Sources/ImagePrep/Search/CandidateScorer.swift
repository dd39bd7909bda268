/// Scores encodes of one picture against it, for `--quality auto`: the picture as it would be written
/// losslessly (what OutputEncoding is handed: turned, resized, colour-converted, flattened) is prepared
/// once (`SSIMULACRA2.Reference`, one per frame of an animation), and each encode is decoded back through
/// the reader registry, so only the encoder's loss is measured. The original is in the output's ICC profile,
/// each decode in the profile its decoder reports (a decoder may hand out pixels in another space: libjxl
/// gives an XYB-coded picture back in sRGB).
struct CandidateScorer: Sendable {
    private let references: [SSIMULACRA2.Reference]
    /// Each reference frame's start, in milliseconds (0 for a still picture).
    private let starts: [Int]
    private let isAnimation: Bool
    private let maxPixels: Int
    /// Threads a score may use (the job's share of the cores: two when it is alone); never changes a score.
    private let threads: Int

    init(_ picture: DecodedPixels, profile: [UInt8]?, maxPixels: Int, threads: Int) throws {
        if case .animation(let animation) = picture {
            references = try animation.frames.map { try SSIMULACRA2.Reference($0.canvas, profile: profile, threads: threads) }
            starts = Self.starts(of: animation)
            isAnimation = true
        } else {
            references = [try SSIMULACRA2.Reference(picture.rgb(), profile: profile, threads: threads)]
            starts = [0]
            isAnimation = false
        }
        self.maxPixels = maxPixels
        self.threads = threads
    }

    /// The score of `encoded`: for an animation, its lowest frame's (each frame of the original against
    /// the decoded frame shown at the same time). The picture alone is decoded: no gain map.
    func score(_ encoded: [UInt8]) throws -> Double {
        let format = try FormatSniffer.sniff(encoded).get()
        let options = DecodeOptions(maxPixels: maxPixels, keepsAnimation: isAnimation)
        let decoded = try format.reader.decoder.decode(encoded, options: options)
        guard case .animation(let animation) = decoded.content, isAnimation else {
            return try references[0].score(decoded.content.rgb(), profile: decoded.metadata.icc, threads: threads)
        }
        let shownStarts = Self.starts(of: animation)
        var lowest = Double.infinity
        for (index, reference) in references.enumerated() {
            // The decoded frame on screen when this one starts (an encoder may merge identical frames).
            let shown = shownStarts.lastIndex { $0 <= starts[index] } ?? 0
            lowest = min(lowest, try reference.score(animation.frames[shown].canvas, profile: decoded.metadata.icc,
                                                     threads: threads))
        }
        return lowest
    }

    private static func starts(of animation: Animation) -> [Int] {
        var time = 0
        return animation.frames.map { frame in
            defer { time += max(frame.duration, 0) }
            return time
        }
    }
}
