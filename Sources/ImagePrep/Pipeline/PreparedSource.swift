/// A source decoded, turned upright, resized and colour-converted: where every format's encode starts.
struct PreparedSource {
    var decoded: DecodedImage
    /// Upright, at the output's size, in the output's colours.
    var picture: DecodedPixels
    /// The upright size before resizing.
    var upright: (Int, Int)
    /// The HDR gain map, turned and resized with the picture, when it was decoded.
    var gainMap: GainMap?
}

/// The prepared source one file's outputs share: `--to auto` prepares it once for all the formats it
/// tries, decoding with what any of them needs (every frame, the gain map) and handing each format the
/// same picture when what that format asked for would decode the same. Used on one thread, for one file.
final class PreparedSources {
    /// What the one decode asks for, given what one format asks for.
    private let widened: (DecodeOptions) -> DecodeOptions
    private var kept: (options: DecodeOptions, source: PreparedSource)?
    /// The scorers the formats' searches share (each searches against the same picture).
    let scorers = ScorerShelf()

    /// Nothing shared: each call prepares the source for exactly what it asks.
    convenience init() { self.init(widening: { $0 }) }

    init(widening: @escaping (DecodeOptions) -> DecodeOptions) { widened = widening }

    /// Decoding for `formats` (with their settings): every frame when one keeps animation, the gain map
    /// when one carries it.
    convenience init(for formats: [ConversionSettings]) {
        let keepsAnimation = formats.contains { $0.format.writer.traits.keepsAnimation }
        let readsGainMap = formats.contains(where: GainMapPlan.writes)
        self.init(widening: { options in
            var options = options
            options.keepsAnimation = options.keepsAnimation || keepsAnimation
            options.readsGainMap = options.readsGainMap || readsGainMap
            return options
        })
    }

    /// The source prepared for `options`: the one already made when it is what `make` would give.
    func prepared(for options: DecodeOptions, make: (DecodeOptions) throws -> PreparedSource) rethrows -> PreparedSource {
        if let kept, Self.serves(kept.source, preparedWith: kept.options, options) { return kept.source }
        var wide = widened(options)
        if let kept {
            // The source kept has what this format does not take (an animation for a still format): the
            // next is as wide without that, for the formats still to come.
            if kept.source.isAnimation, !options.keepsAnimation { wide.keepsAnimation = false }
            if kept.source.decoded.gainMap.origin != nil, !options.readsGainMap { wide.readsGainMap = false }
        }
        let source = try make(wide)
        kept = (wide, source)
        if Self.serves(source, preparedWith: wide, options) { return source }
        let own = try make(options)
        kept = (options, own)
        return own
    }

    /// Whether a source prepared with `made` is what `asked` would prepare: the same options, or more
    /// that found nothing more (no second frame, no gain map).
    private static func serves(_ source: PreparedSource, preparedWith made: DecodeOptions, _ asked: DecodeOptions) -> Bool {
        var made = made
        if made.keepsAnimation, !asked.keepsAnimation, !source.isAnimation { made.keepsAnimation = false }
        if made.readsGainMap, !asked.readsGainMap, source.decoded.gainMap.origin == nil { made.readsGainMap = false }
        return made == asked
    }
}

private extension PreparedSource {
    var isAnimation: Bool {
        if case .animation = picture { return true }
        return false
    }
}
