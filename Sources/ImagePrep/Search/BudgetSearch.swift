import Foundation

/// The search for the highest quality whose encode of the whole picture fits a byte budget, aimed by
/// a probe of a crop mosaic; when even the floor does not fit, `shrunk` (ShrinkToFit.swift) takes over.
struct BudgetSearch {
    let job: EncodingJob
    let budget: ByteBudget
    let model: SizeModel

    /// The lowest quality the search may use.
    var floor: Int { min(budget.minQuality, job.settings.quality) }
    /// Qualities encoded side by side: idle cores, for encoders that cannot use them themselves.
    var lanes: Int { job.encoder.runsTrialsSideBySide ? max(1, job.threads) : 1 }
    /// Whether the picture may shrink to fit.
    var canShrink: Bool { budget.allowDownscale && max(job.picture.width, job.picture.height) > 16 }

    /// What a search at full size settles.
    enum FullSize {
        case written(PreparedImage)
        /// Even the floor does not fit: what it weighs (measured, or predicted by the probe) and the
        /// encodes it took to learn that.
        case tooLarge(floorSize: Int, measured: Bool, encodes: Int)
    }

    /// The whole picture first, at full size; shrunk when that cannot fit.
    func run(sizeHints: [Int: Int]) throws -> PreparedImage {
        let picture = job.picture
        let (metadata, notes) = job.metadata(for: picture)
        let metadataBytes = job.encoder.metadataBytes(metadata)
        if metadataBytes + 1024 > budget.maxBytes {
            throw MetadataOverBudget.error(metadata, bytes: metadataBytes, budget: budget, settings: job.settings)
        }
        // Fixed across qualities, so the quality model leaves it out (a gain map's bytes); it shrinks with the
        // picture, so the shrink step measures it with the picture.
        let fixedBytes = metadataBytes + job.encoder.bytesBesidePicture(width: picture.width, height: picture.height)
        let probed = budget.strategy == .binary
            ? try probe(pictureBudget: budget.maxBytes - fixedBytes, hints: sizeHints, overhead: fixedBytes) : nil
        let hints = probed?.hints ?? sizeHints
        var prepared: PreparedImage
        switch try fullSize(metadata: metadata, notes: notes, hints: hints, fixedBytes: fixedBytes, probedFloor: probed?.hints[floor]) {
        case .written(let written):
            prepared = written
        case .tooLarge(let floorSize, let measured, let encodes):
            // The picture comes first: what travels beside it (an HDR gain map) goes before it shrinks.
            if job.encoder.bytesBesidePicture(width: picture.width, height: picture.height) > 0 {
                return try withoutGainMap(encodes: encodes, probes: probed?.encodes ?? 0)
            }
            prepared = try shrunk(floorSize: floorSize, measured: measured, hints: hints, fixedBytes: fixedBytes,
                                  metadataBytes: metadataBytes, encodes: encodes)
        }
        prepared.probes = probed?.encodes ?? 0
        return prepared
    }

    /// The search again with the picture's encoder alone, the gain map dropped with a warning; `encodes`
    /// and `probes` were spent learning that the map did not fit.
    func withoutGainMap(encodes: Int, probes: Int) throws -> PreparedImage {
        let alone = EncodingJob(picture: job.picture, encoder: job.encoder.pictureEncoder, source: job.source,
                                settings: job.settings, threads: job.threads,
                                warnings: job.warnings + ["dropped the HDR gain map to fit \(budget.formatted): the picture comes first; wrote the SDR picture only"])
        var prepared = try BudgetSearch(job: alone, budget: budget, model: model).run(sizeHints: [:])
        prepared.encodes += encodes
        prepared.probes += probes
        return prepared
    }

    /// The search on the whole picture, unless the probe settled that it cannot fit.
    func fullSize(metadata: ImageMetadata, notes: [String], hints: [Int: Int], fixedBytes: Int, probedFloor: Int?) throws -> FullSize {
        let picture = job.picture
        // A probe that puts even the floor 30% over the budget (its spread is 3-6%) settles that this
        // size cannot fit: shrink without encoding it (--no-downscale wants the measured size instead).
        if canShrink, let predicted = probedFloor, Double(predicted) > 1.3 * Double(budget.maxBytes) {
            return .tooLarge(floorSize: predicted, measured: false, encodes: 0)
        }
        let result = try search(picture, metadata: metadata, hints: hints, overhead: fixedBytes)
        if let fit = result.fit {
            return .written(try written(picture, result, fit: fit, metadata: metadata, notes: notes, encodes: result.encodes))
        }
        guard canShrink else {
            throw ImagePrepError(.doesNotFit,
                "\(picture.width)x\(picture.height) does not fit \(budget.formatted): the smallest is \(result.smallestSize) bytes at quality \(floor)" + (budget.allowDownscale ? "" : " (--no-downscale)"))
        }
        return .tooLarge(floorSize: result.sizes[floor] ?? result.smallestSize, measured: true, encodes: result.encodes)
    }

    /// The quality search on `image` (the whole picture), from the floor to the requested quality.
    func search(_ image: DecodedPixels, metadata: ImageMetadata, hints: [Int: Int], overhead: Int,
                known: [Int: [UInt8]] = [:]) throws -> SearchResult {
        let encoder = job.encoder
        return try searchQuality(floor: floor, ceiling: job.settings.quality, budget: budget.maxBytes,
                                 strategy: budget.strategy, model: model, hints: hints,
                                 overhead: overhead, lanes: lanes, known: known) { qualities in
            try OutputEncoding.encodeSideBySide(qualities) { try encoder.encode(image, quality: $0, metadata: metadata) }
        }
    }

    /// The search's answer written: with the alternative tried one quality above when that was close.
    /// `encodes`: those made for this output so far.
    func written(_ image: DecodedPixels, _ result: SearchResult, fit: (quality: Int, bytes: [UInt8]),
                 metadata: ImageMetadata, notes: [String], encodes: Int) throws -> PreparedImage {
        let picture = job.picture
        var fit = fit, encodes = encodes
        // The alternative differs by a few percent (up to 6% on corpus photos for JPEG's tables), so
        // it is not worth an encode when the next quality was far over budget.
        let nextSize = result.sizes[fit.quality + 1].map(Double.init) ?? 0
        if let alternative = job.encoder.alternative, fit.quality < job.settings.quality,
           nextSize <= Double(budget.maxBytes) * 1.08 {
            let bytes = try alternative.encode(image, quality: fit.quality + 1, metadata: metadata)
            encodes += 1
            if bytes.count <= budget.maxBytes { fit = (fit.quality + 1, bytes) }
        }
        var notes = notes
        if image.width != picture.width {
            notes.append("\(picture.width)x\(picture.height) does not fit \(budget.formatted) at quality \(floor); wrote \(image.width)x\(image.height) at quality \(fit.quality)")
        }
        return job.prepared(image, fit.bytes, quality: fit.quality, encodes: encodes, notes: notes)
    }

    /// Searches a mosaic of crops of `picture` (a sixteenth of it, see ProbeMosaic) for the budget scaled to
    /// its area: the sizes found, scaled back, are hints that aim the trials on the whole picture. Nil for
    /// pictures too small to be worth it (their own encodes are cheap).
    func probe(pictureBudget: Int, hints: [Int: Int], overhead: Int) throws -> (hints: [Int: Int], encodes: Int)? {
        let (encoder, ceiling) = (job.encoder, job.settings.quality)
        guard let mosaic = ProbeMosaic(job.picture) else { return nil }
        let scale = mosaic.areaRatio * model.probeRatio
        let mosaicBudget = max(1, Int(Double(pictureBudget) / scale))
        let mosaicHints = hints.mapValues { max(1, Int(Double($0 - overhead) / scale)) }
        let result = try searchQuality(floor: floor, ceiling: ceiling, budget: mosaicBudget, strategy: .binary,
                                       model: model, hints: mosaicHints, lanes: lanes) { qualities in
            try OutputEncoding.encodeSideBySide(qualities) { try encoder.pictureEncoder.encode(mosaic.picture, quality: $0, metadata: ImageMetadata()) }
        }
        return (result.sizes.mapValues { overhead + Int(Double($0) * scale) }, result.encodes)
    }
}
