import Foundation

/// sniff → decode → orient → resize → colour → encode (with the quality search), for one file in memory.
/// Writing is the caller's job (see AtomicWriter), so the library never touches the file system here.
/// Decoders and encoders come from their registries: nothing here asks which format it is handling.
public enum ImagePipeline {
    /// - Parameters:
    ///   - scheduling: how many threads the picture may use; the bytes are the same whatever it says.
    ///   - onStage: told as each stage starts.
    /// - Throws: an ImagePrepError carrying the stage it failed in.
    public static func prepare(_ file: [UInt8], settings: ConversionSettings, scheduling: Scheduling = Scheduling(),
                               onStage: (PipelineStage) -> Void = { _ in }) throws -> PreparedImage {
        var stage = PipelineStage.sniff
        do {
            return try withoutActuallyEscaping(onStage) { onStage in
                let report: (PipelineStage) -> Void = { next in
                    stage = next
                    onStage(next)
                }
                if let set = settings.set {
                    return try SetPipeline.prepare(file, settings: settings, set: set, threads: scheduling.threads, onStage: report)
                }
                if settings.autoFormats == nil, let graphicFormat = settings.graphicFormat {
                    let pictures = PreparedSources()
                    return try GraphicRoute.prepare(file, settings: settings, graphicFormat: graphicFormat, learn: { settings, facts in
                        _ = try prepareStages(file, settings: settings, scheduling: scheduling, pictures: pictures,
                                              learningOnly: true, facts: &facts, onStage: report)
                    }, prepare: { settings in
                        var facts = SourceFacts()
                        return try prepareStages(file, settings: settings, scheduling: scheduling, pictures: pictures,
                                                 facts: &facts, onStage: report)
                    })
                }
                guard let candidates = settings.autoFormats else {
                    var facts = SourceFacts()
                    return try prepareStages(file, settings: settings, scheduling: scheduling, pictures: PreparedSources(),
                                             facts: &facts, onStage: report)
                }
                let pictures = PreparedSources(for: candidates.map { settings.choosing($0) })
                return try AutoFormatChoice.prepare(candidates, settings: settings, learn: { settings, facts in
                    _ = try prepareStages(file, settings: settings, scheduling: scheduling, pictures: pictures,
                                          learningOnly: true, facts: &facts, onStage: report)
                }, prepare: { settings, toBeat, facts in
                    try prepareStages(file, settings: settings, scheduling: scheduling, pictures: pictures, toBeat: toBeat,
                                      facts: &facts, onStage: report)
                })
            }
        } catch {
            throw ImagePrepError.failed(at: stage, error, otherwise: .corrupt)
        }
    }

    /// - Parameters:
    ///   - pictures: where the prepared source is kept for another format of the same file.
    ///   - toBeat: what another format's output measured (`--to auto`), for the score search to beat.
    ///   - learningOnly: stop once the source's facts are known (with SourceFactsLearnt), before encoding.
    private static func prepareStages(_ file: [UInt8], settings: ConversionSettings, scheduling: Scheduling,
                                      pictures: PreparedSources, toBeat: Int? = nil, learningOnly: Bool = false,
                                      facts: inout SourceFacts, onStage: (PipelineStage) -> Void) throws -> PreparedImage {
        let threads = scheduling.threads
        onStage(.sniff)
        let format = try FormatSniffer.sniff(file).get()
        onStage(.decode)
        var settings = settings
        // An input already in the output format may need no new pixels (each writer's `keepingInput`).
        let outputFormat = settings.format.writer
        var notKept: [String] = []
        // A truncated file let through is always decoded: its bytes are never an output as they are.
        let cutShort = settings.allowsTruncated && format.reader.isCutShort(file)
        if let keeping = outputFormat as? any InputKeepingWriter, keeping.considersKeeping(format), !cutShort,
           let kept = try keeping.keepingInput(file, settings: &settings, notes: &notKept) { return kept }

        let decoder = format.reader.decoder
        let stored = try decoder.header(of: file)
        // Every size below is planned from the header (a HEIF item without `ispe` reads as 0x0 in libheif).
        try stored.check(maxPixels: settings.maxPixels)
        facts.isAnimated = stored.frames > 1
        // A search (budget or score) keeps one chroma layout throughout.
        let searching = settings.budget != nil || settings.scoreTarget != nil
        let plain = EncoderRegistry.encoder(for: settings, searching: searching, threads: threads)
        // The long edge to shrink to, from the full-size picture so shrink-on-load does not change the rounding.
        let shrinkingTo = settings.maxDimension.flatMap { max(stored.width, stored.height) > $0 ? $0 : nil }
        var options = DecodeOptions(maxPixels: settings.maxPixels, threads: threads, shrinkingTo: shrinkingTo,
                                    convertsToSRGB: settings.color == .srgb, keepsAnimation: plain.traits.keepsAnimation)
        // A picture kept in its colours may stay in the source's own Y'CbCr planes, turned and resized as planes.
        // Not for --quality auto: its score is against the picture as RGB resampling shows it (what a lossless
        // output holds); resized planes shown with block chroma scored some photos 0.3 below the target.
        options.keepsYCbCr420 = plain.ycbcrLayout != nil && settings.color == .keep && settings.scoreTarget == nil
        options.readsGainMap = GainMapPlan.writes(settings)
        options.allowsTruncated = settings.allowsTruncated
        let source = try pictures.prepared(for: options) { options in
            try preparePicture(file, decoder: decoder, stored: stored, options: options, settings: settings, onStage: onStage)
        }
        var decoded = source.decoded
        decoded.warnings = notKept + decoded.warnings
        facts.hasGainMap = decoded.gainMap.origin != nil
        var picture = source.picture
        let upright = source.upright
        // A source's own size and quality predict the first trial, saving the encode at the ceiling.
        func sizeHints(width: Int, height: Int) -> [Int: Int] {
            guard let hint = decoded.sizeHint else { return [:] }
            let area = Double(width * height) / Double(upright.0 * upright.1)
            return [hint.quality: Int(Double(hint.bytes) * pow(area, OutputEncoding.sizeExponent))]
        }

        // A JPEG turned by 90° at its own size keeps its block grid: transposed tables requantize each
        // block as the unturned file would be (about 5% smaller than the standard tables at quality 86).
        let turnedBlockGrid = decoded.isDCTBlockGrid && decoded.orientation.swapsDimensions && shrinkingTo == nil
        // `--quality auto` may try the other chroma layout too (the format's ScoreModel says whether).
        let searchesLayouts = settings.scoreTarget != nil && settings.subsampling == nil && plain.traits.subsamplesChroma
            && plain.traits.scoreModel?.triesOtherLayout == true
        // Measured once per source (a --to auto candidate is handed what was learnt), and only where it decides something.
        if facts.isGraphic == nil, learningOnly || searchesLayouts, case .rgb(let image) = picture {
            facts.isGraphic = GraphicContent(image).isGraphic
        }
        // A graphic's coloured edges and text need full chroma: its score search starts in 4:4:4 and tries
        // 4:2:0 second (a screenshot at 4:2:0 missed 80 even at AVIF quality 100, and 4:4:4 reached it at 44).
        let graphicFirst = searchesLayouts && facts.isGraphic == true
        let layouts: (first: ChromaSubsampling, second: ChromaSubsampling) = graphicFirst ? (.s444, .s420) : (.s420, .s444)
        var firstLayout = settings
        if graphicFirst { firstLayout.subsampling = layouts.first }
        let encoder = turnedBlockGrid || graphicFirst
            ? EncoderRegistry.encoder(for: firstLayout, context: EncoderContext(searching: searching, threads: threads, turnedBlockGrid: turnedBlockGrid))
            : plain
        // nil unless this format reads it: a source decoded with its gain map is shared only when it has none.
        let gainMap = source.gainMap
        decoded.warnings += GainMapPlan.notes(decoded.gainMap, written: gainMap != nil, settings: settings)
        GainMapPlan.removeSourceClaims(&decoded, settings: settings)
        facts.hasAlpha = switch picture {
        case .rgb(let image): image.hasAlpha
        case .animation(let animation): animation.frames.contains { $0.canvas.hasAlpha }
        default: false
        }
        facts.known = true
        if learningOnly { throw SourceFactsLearnt() }
        switch picture {
        case .rgb(let image) where image.hasAlpha && !encoder.traits.keepsAlpha:
            picture = .rgb(flattened(image, onto: settings.background))
        default:
            picture = picture.prepared(for: encoder)
        }
        onStage(.encode)
        // Only a writer that carries gain maps returns an encoder for one (GainMapPlan.writes asked it first).
        let mapWriter = outputFormat as? any GainMapWriter
        let withMap = gainMap.flatMap {
            mapWriter?.gainMapEncoder(base: encoder, gainMap: $0, pictureSize: (picture.width, picture.height), threads: threads)
        }
        var chromaAlternative: (any ImageEncoding)?
        if searchesLayouts {
            var other = settings
            other.subsampling = layouts.second
            let base = EncoderRegistry.encoder(for: other, context: EncoderContext(searching: true, threads: threads, turnedBlockGrid: turnedBlockGrid))
            chromaAlternative = gainMap.flatMap {
                mapWriter?.gainMapEncoder(base: base, gainMap: $0, pictureSize: (picture.width, picture.height), threads: threads)
            } ?? base
        }
        if chromaAlternative == nil, settings.scoreTarget != nil, encoder.traits.scoreModel?.searchesChromaLayouts == true {
            chromaAlternative = encoder.scoredAlternative
        }
        var prepared = try OutputEncoding.encode(picture, with: withMap ?? encoder, metadata: decoded.metadata, settings: settings,
                                                 threads: threads, warnings: decoded.warnings,
                                                 sizeHints: sizeHints(width: picture.width, height: picture.height),
                                                 chromaAlternative: chromaAlternative, toBeat: toBeat, scorers: pictures.scorers)
        if withMap != nil { prepared.gainMap = mapWriter?.writtenGainMap(in: prepared.bytes) }
        return prepared
    }

    /// decode → orient → resize → colour: the source as every format's encoder starts from it.
    private static func preparePicture(_ file: [UInt8], decoder: any ImageDecoding, stored: ImageHeader, options: DecodeOptions,
                                       settings: ConversionSettings, onStage: (PipelineStage) -> Void) throws -> PreparedSource {
        let threads = options.threads
        var decoded = try decoder.decode(file, options: options)
        onStage(.orient)
        var picture = decoded.content.oriented(decoded.orientation)
        if picture.width * picture.height > settings.maxPixels {   // a header that understated the size
            throw ImagePrepError(.tooLarge, "the picture decodes as \(picture.width)x\(picture.height), over the --max-pixels limit of \(settings.maxPixels) pixels",
                                 stage: .decode)
        }
        let headerUpright = decoded.orientation.swapsDimensions ? (stored.height, stored.width) : (stored.width, stored.height)
        let upright = DecodedSize.upright(header: headerUpright, picture: (picture.width, picture.height), warnings: &decoded.warnings)
        let target = settings.maxDimension.map { fittedSize(width: upright.0, height: upright.1, maxDimension: $0) }

        // Planes stay planes through resizing and into the encoder: no full-size interleaved copy.
        onStage(.resize)
        if let target, target.width != picture.width || target.height != picture.height {
            picture = picture.resized(width: target.width, height: target.height, threads: threads)
        }
        onStage(.colour)
        if settings.color == .srgb {
            picture = toSRGB(picture, decoded: &decoded, settings: settings, threads: threads)
        }
        // The gain map takes the picture's turns and resizes; it stays in the base picture's colours.
        let gainMap = decoded.gainMap.gainMap.map {
            $0.oriented(decoded.orientation)
                .scaled(from: upright, to: (picture.width, picture.height), threads: threads)
        }
        return PreparedSource(decoded: decoded, picture: picture, upright: upright, gainMap: gainMap)
    }

    /// `--color srgb`: 8-bit pixels converted from the source's profile (deeper ones were converted by
    /// the decoder), and the compact sRGB profile in place of the source's (none with --strip-metadata).
    static func toSRGB(_ picture: DecodedPixels, decoded: inout DecodedImage, settings: ConversionSettings,
                       threads: Int) -> DecodedPixels {
        var converted = picture
        if !decoded.isSRGB, case .animation(let animation) = picture {
            if let transform = SRGBConversion.transform(for: decoded.metadata.icc, bytesPerSample: 1, stride: 4,
                                                        warnings: &decoded.warnings) {
                converted = .animation(animation.mapFrames { SRGBConversion.converted($0, with: transform, threads: threads) })
            }
        } else if !decoded.isSRGB {
            let image = picture.rgb()
            if let transform = SRGBConversion.transform(for: decoded.metadata.icc, bytesPerSample: 1, stride: image.channels,
                                                        warnings: &decoded.warnings) {
                converted = .rgb(SRGBConversion.converted(image, with: transform, threads: threads))
            }
        }
        decoded.metadata.icc = settings.stripMetadata ? nil : SRGBProfile.bytes
        return converted
    }

    /// Composites straight alpha over a solid colour, for outputs without alpha.
    static func flattened(_ image: PixelBuffer, onto background: RGBColor) -> PixelBuffer {
        let count = image.width * image.height
        var out = [UInt8](repeating: 0, count: count * 3)
        let bg = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<count {
                    let alpha = UInt32(src[i * 4 + 3])
                    for c in 0..<3 {
                        let value = UInt32(src[i * 4 + c]) * alpha + bg[c] * (255 - alpha)
                        dst[i * 3 + c] = UInt8((value + 127) / 255)
                    }
                }
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: 3, pixels: out)
    }
}
