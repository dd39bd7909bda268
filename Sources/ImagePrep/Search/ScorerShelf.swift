/// The scorers one file's searches share: `--to auto` searches each format against the same picture, and
/// the prepared original (about 150 MB at 2048x1536, with its page faults and its pyramid's time) is made
/// once instead of once per format. Holds the last still picture's scorer and its mosaic's; a different
/// picture (flattened for a format without alpha, another profile) replaces them. One file, one thread.
final class ScorerShelf {
    private struct Entry {
        let image: PixelBuffer
        let profile: [UInt8]?
        let maxPixels: Int
        let threads: Int
        let scorer: CandidateScorer
    }
    private var whole: Entry?
    private var mosaic: Entry?

    /// The scorer of `picture` (an animation's is made afresh each time: it is not shared).
    func scorer(for picture: DecodedPixels, profile: [UInt8]?, maxPixels: Int, threads: Int) throws -> CandidateScorer {
        try Self.scorer(for: picture, profile: profile, maxPixels: maxPixels, threads: threads, in: &whole)
    }

    /// The scorer of a search's probe mosaic (ProbeMosaic), kept apart from the whole picture's.
    func mosaicScorer(for mosaic: DecodedPixels, profile: [UInt8]?, maxPixels: Int, threads: Int) throws -> CandidateScorer {
        try Self.scorer(for: mosaic, profile: profile, maxPixels: maxPixels, threads: threads, in: &self.mosaic)
    }

    private static func scorer(for picture: DecodedPixels, profile: [UInt8]?, maxPixels: Int, threads: Int,
                               in entry: inout Entry?) throws -> CandidateScorer {
        if case .animation = picture {
            return try CandidateScorer(picture, profile: profile, maxPixels: maxPixels, threads: threads)
        }
        let image = picture.rgb()
        if let kept = entry, kept.image == image, kept.profile == profile, kept.maxPixels == maxPixels, kept.threads == threads {
            return kept.scorer
        }
        entry = nil   // the old prepared original goes before the new one is made
        let scorer = try CandidateScorer(.rgb(image), profile: profile, maxPixels: maxPixels, threads: threads)
        entry = Entry(image: image, profile: profile, maxPixels: maxPixels, threads: threads, scorer: scorer)
        return scorer
    }
}
