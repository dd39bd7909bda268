/// What `--to auto` needs to know of a source to rule formats out, learnt while preparing it.
struct SourceFacts {
    /// Whether the facts below were learnt (false when the input was kept without decoding).
    var known = false
    var hasAlpha = false
    var isAnimated = false
    var hasGainMap = false
    /// Drawn rather than photographed (GraphicContent): lossless candidates are tried first. nil until measured.
    var isGraphic: Bool?
}

/// Thrown by the pipeline once it has learnt a source's facts, when that was all it was asked for.
struct SourceFactsLearnt: Error {}

/// `--to auto`: the picture prepared in each allowed format that can hold what it has (alpha, animation,
/// an HDR gain map unless --hdr drop: each writer's traits say), and the smallest that meets the target
/// score (or, with only a budget, fits at full size) written. The formats are tried in the order given,
/// one after another, so the answer never depends on threads. With a target score and no budget, each
/// format after the first is told the smallest size that met the target so far: its search stops once
/// it cannot be smaller, or is not made when its crop mosaic predicts far more (ScoreSearch).
/// A graphic (GraphicContent) is first written in the lossless mode of each allowed format that has one
/// (WebP, JPEG XL): a screenshot's lossless WebP is often a tenth of the lossy file that reaches the
/// target, and then the lossy searches stop at their first trials.
enum AutoFormatChoice {
    /// One format to try, in its lossless mode or its usual one.
    private struct Candidate {
        var format: FormatQuality
        var lossless = false
    }

    /// - Parameters:
    ///   - learn: the pipeline as far as the source's facts (it throws SourceFactsLearnt there).
    ///   - prepare: the pipeline for one format and the size it must beat, telling what it learnt of the source.
    static func prepare(_ candidates: [FormatQuality], settings: ConversionSettings,
                        learn: (ConversionSettings, inout SourceFacts) throws -> Void,
                        prepare: (ConversionSettings, Int?, inout SourceFacts) throws -> PreparedImage) throws -> PreparedImage {
        var learnt = SourceFacts()
        if let first = candidates.first {
            // A source that fails here fails the same way below, where its error is reported.
            do { try learn(settings.choosing(first), &learnt) } catch {}
        }
        /// The candidates that hold what the source has; all of them when none does (each loses the same:
        /// flattened, first frame, SDR).
        func holdingAll(_ facts: SourceFacts) -> [FormatQuality] {
            let allowed = candidates.filter { holds(facts, $0.format, settings: settings) }
            return allowed.isEmpty ? candidates : allowed
        }
        var eligible: [FormatQuality]? = learnt.known ? holdingAll(learnt) : nil
        var remaining = (eligible ?? candidates).map { Candidate(format: $0) }
        if learnt.known, learnt.isGraphic == true, !learnt.isAnimated {
            remaining = remaining.filter { $0.format.format.writer.offersLosslessMode }.map { Candidate(format: $0.format, lossless: true) }
                + remaining
        }
        var results: [(candidate: Candidate, image: PreparedImage)] = []
        var encodes = 0, scores = 0, probes = 0
        var firstError: (any Error)?
        var outclassed: [FormatCandidate] = []
        // The smallest output so far that met the target (only a score search can be cut short by it).
        var toBeat: Int? {
            guard let target = settings.scoreTarget, settings.budget == nil else { return nil }
            return results.filter { ($0.image.score ?? -.infinity) >= target.score }.map(\.image.bytes.count).min()
        }
        while !remaining.isEmpty {
            let candidate = remaining.removeFirst()
            var one = settings.choosing(candidate.format)
            if candidate.lossless { (one.lossless, one.palette) = (true, false) }
            var facts = SourceFacts()
            facts.isGraphic = learnt.isGraphic
            let image: PreparedImage
            do {
                image = try prepare(one, toBeat, &facts)
            } catch let skipped as OutclassedFormat {
                outclassed.append(FormatCandidate(format: candidate.format.format, bytes: skipped.predictedBytes, quality: nil, score: nil,
                                                  meets: false, searched: false))
                continue
            } catch let error as ImagePrepError where [.doesNotFit, .unsupported].contains(error.kind) {
                // This format cannot write it (metadata over the budget, say); another may.
                firstError = firstError ?? error
                continue
            }
            (encodes, scores, probes) = (encodes + image.encodes, scores + image.scores, probes + image.probes)
            if eligible == nil {
                eligible = facts.known ? holdingAll(facts) : candidates
                remaining = remaining.filter { eligible?.contains($0.format) == true }
            }
            // A lossless file is one size: over the budget, it is not a candidate.
            if candidate.lossless, let budget = settings.budget, image.bytes.count > budget.maxBytes { continue }
            if eligible?.contains(candidate.format) == true { results.append((candidate, image)) }
        }
        let fullWidth = results.map(\.image.width).max() ?? 0
        func meets(_ image: PreparedImage) -> Bool {
            image.width == fullWidth && settings.scoreTarget.map { (image.score ?? -.infinity) >= $0.score } ?? true
        }
        // The smallest that meets; when none does, the largest picture, then the best score, then the smallest.
        let chosen = results.filter { meets($0.image) }.min { $0.image.bytes.count < $1.image.bytes.count }
            ?? results.min { a, b in
                if a.image.width != b.image.width { return a.image.width > b.image.width }
                if (a.image.score ?? 0) != (b.image.score ?? 0) { return (a.image.score ?? 0) > (b.image.score ?? 0) }
                return a.image.bytes.count < b.image.bytes.count
            }
        guard var written = chosen?.image else {
            throw firstError ?? ImagePrepError(.unsupported, "--to auto has no format to write")
        }
        let order = candidates.map(\.format)
        written.candidates = (results.map {
            FormatCandidate(format: $0.image.format, bytes: $0.image.bytes.count, quality: $0.image.quality,
                            score: $0.image.score, meets: meets($0.image), lossless: $0.candidate.lossless)
        } + outclassed).enumerated().sorted { a, b in
            // In the order given, each format's lossless mode first (as tried).
            let (ia, ib) = (order.firstIndex(of: a.element.format) ?? 0, order.firstIndex(of: b.element.format) ?? 0)
            return ia != ib ? ia < ib : a.offset < b.offset
        }.map(\.element)
        (written.encodes, written.scores, written.probes) = (encodes, scores, probes)
        return written
    }

    /// Whether `format` keeps what the source has.
    static func holds(_ facts: SourceFacts, _ format: OutputFormat, settings: ConversionSettings) -> Bool {
        let traits = format.writer.traits
        return (!facts.hasAlpha || traits.keepsAlpha) && (!facts.isAnimated || traits.keepsAnimation)
            && (!facts.hasGainMap || settings.hdr == .drop || traits.carriesGainMap)
    }
}

extension ConversionSettings {
    /// These settings for one of `--to auto`'s candidates.
    func choosing(_ candidate: FormatQuality) -> ConversionSettings {
        var one = self
        one.format = candidate.format
        one.quality = candidate.quality
        one.autoFormats = nil
        return one
    }
}
