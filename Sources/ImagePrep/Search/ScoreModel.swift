/// How a format's SSIMULACRA 2 score follows its quality, to aim `--quality auto`'s first trial: a prior
/// measured on corpus photos, declared beside each lossy writer (`ScoreModel.jpeg` in Formats/JPEG). Each
/// picture has its own curve; the search measures it and the prior only saves trials.
public struct ScoreModel: Sendable, Equatable {
    /// The quality whose encode usually scores about 80 (the median over corpus photos).
    public let qualityAt80: Int
    /// Score points gained per quality step near there (typical; the search measures each picture's own).
    public let pointsPerQuality: Double
    /// Whether `--quality auto` tries both 4:2:0 and 4:4:4 chroma (when --subsampling is not given), or
    /// both of a format's other ways (its encoder's `scoredAlternative`), and writes the smaller at the
    /// target: worth it where 4:4:4 often reaches a score at fewer bytes.
    public let searchesChromaLayouts: Bool
    /// How many qualities below the first layout's answer the other layout usually reaches the same score.
    public let otherLayoutBelow: Int
    /// Whether 4:4:4 is searched when 4:2:0 cannot reach the target at any quality (fine saturated detail,
    /// drawn colours), for a format whose 4:4:4 encodes are too slow to try on every picture.
    public let fullChromaWhenMissed: Bool
    /// How much higher a picture's crop mosaic (ProbeMosaic) scores than the whole picture at one quality:
    /// the mosaic is searched for the target plus this to aim the whole picture's first trial. Each format
    /// declares the median over the 11 device photos at 2048 pixels (1.5 for AVIF to 1.9 for JPEG and
    /// WebP; single photos range from about -0.7 to 3).
    public let mosaicScoresAbove: Double

    public init(qualityAt80: Int, pointsPerQuality: Double, searchesChromaLayouts: Bool = false, otherLayoutBelow: Int = 0,
                fullChromaWhenMissed: Bool = false, mosaicScoresAbove: Double = 2) {
        self.qualityAt80 = qualityAt80
        self.pointsPerQuality = pointsPerQuality
        self.searchesChromaLayouts = searchesChromaLayouts
        self.otherLayoutBelow = otherLayoutBelow
        self.fullChromaWhenMissed = fullChromaWhenMissed
        self.mosaicScoresAbove = mosaicScoresAbove
    }

    /// Whether `--quality auto` needs the other chroma layout's encoder at hand.
    var triesOtherLayout: Bool { searchesChromaLayouts || fullChromaWhenMissed }

    /// The first quality to try for `target`.
    func firstGuess(target: Double, in range: ClosedRange<Int>) -> Int {
        let guess = Double(qualityAt80) + (target - 80) / max(pointsPerQuality, 0.1)
        return min(max(Int(guess.rounded(.up)), range.lowerBound), range.upperBound)
    }
}

/// `--quality auto --target-score N`: the score every output reaches (against the picture as it would be
/// written losslessly), with the metric's version so the cache key changes with the metric.
public struct ScoreTarget: Sendable, Codable, Equatable {
    public var score: Double
    public var metric: String = SSIMULACRA2.version
    /// The lowest quality the search may use without a budget (`--min-quality`; a budget has its own).
    public var minQuality = 1
    /// What `--target-score` accepts: below 30 pictures are visibly broken; 100 is identical.
    public static let range: ClosedRange<Double> = 30...100
    public static let defaultScore = 80.0

    public init(score: Double) { self.score = score }
}
