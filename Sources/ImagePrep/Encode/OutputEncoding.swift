import Foundation

/// Encodes the final output: once at the requested quality, or by searching for the highest quality
/// that fits the byte budget, shrinking the picture when even the lowest allowed quality is too big.
/// Works with any `ImageEncoding`; nothing here knows the format.
enum OutputEncoding {
    /// Encoded bytes ∝ pixels^sizeExponent when a photo is shrunk (measured on corpus photos).
    static let sizeExponent = 0.75

    /// - Parameters:
    ///   - picture: upright, in a form `encoder` takes, at its final size unless the budget forces shrinking.
    ///   - sizeHints: predicted sizes by quality for this picture, to aim the first trial.
    static func encode(_ picture: DecodedPixels, with encoder: any ImageEncoding, metadata source: ImageMetadata,
                       settings: ConversionSettings, threads: Int = 1, warnings: [String],
                       sizeHints: [Int: Int] = [:]) throws -> PreparedImage {
        // Metadata is rebuilt for each size tried, since EXIF records the pixel dimensions.
        func metadata(for image: DecodedPixels) -> (metadata: ImageMetadata, warnings: [String]) {
            var metadataWarnings: [String] = []
            let metadata = OutputMetadata.prepare(source, for: encoder, width: image.width, height: image.height,
                                                  settings: settings, warnings: &metadataWarnings)
            return (metadata, metadataWarnings)
        }
        func prepared(_ image: DecodedPixels, _ bytes: [UInt8], quality: Int?, encodes: Int, probes: Int = 0,
                      notes: [String]) -> PreparedImage {
            PreparedImage(bytes: bytes, format: encoder.format, width: image.width, height: image.height, quality: quality,
                          encodes: encodes, probes: probes, passedThrough: false, warnings: warnings + notes)
        }

        guard let budget = settings.budget, encoder.isLossy else {
            let (metadata, notes) = metadata(for: picture)
            var bytes = try encoder.encode(picture, quality: settings.quality, metadata: metadata)
            var encodes = 1
            if encoder.isLossy, let alternative = encoder.alternative {
                let other = try alternative.encode(picture, quality: settings.quality, metadata: metadata)
                encodes += 1
                bytes = better(bytes, encoder, other, alternative, picture: picture)
            }
            return prepared(picture, bytes, quality: encoder.isLossy ? settings.quality : nil, encodes: encodes, notes: notes)
        }

        let floor = min(budget.minQuality, settings.quality)
        let lanes = encoder.runsTrialsSideBySide ? max(1, threads) : 1
        var encodes = 0, probes = 0
        /// The search's answer written: with the alternative tried one quality above when that was close.
        func written(_ image: DecodedPixels, _ result: SearchResult, fit: (quality: Int, bytes: [UInt8]),
                     metadata: ImageMetadata, notes: [String]) throws -> PreparedImage {
            var fit = fit
            // The alternative differs by a few percent (up to 6% on corpus photos for JPEG's tables), so
            // it is not worth an encode when the next quality was far over budget.
            let nextSize = result.sizes[fit.quality + 1].map(Double.init) ?? 0
            if let alternative = encoder.alternative, fit.quality < settings.quality,
               nextSize <= Double(budget.maxBytes) * 1.08 {
                let bytes = try alternative.encode(image, quality: fit.quality + 1, metadata: metadata)
                encodes += 1
                if bytes.count <= budget.maxBytes { fit = (fit.quality + 1, bytes) }
            }
            var notes = notes
            if image.width != picture.width {
                notes.append("\(picture.width)x\(picture.height) does not fit \(budget.formatted) at quality \(floor); wrote \(image.width)x\(image.height) at quality \(fit.quality)")
            }
            return prepared(image, fit.bytes, quality: fit.quality, encodes: encodes, probes: probes, notes: notes)
        }

        // The whole picture first.
        let (metadata, notes) = metadata(for: picture)
        let metadataBytes = encoder.metadataBytes(metadata)
        if metadataBytes + 1024 > budget.maxBytes {
            throw MetadataOverBudget.error(metadata, bytes: metadataBytes, budget: budget, settings: settings)
        }
        // Fixed across qualities, so the quality model leaves it out (a gain map's bytes); it shrinks with the
        // picture, so the shrink step measures it with the picture.
        let fixedBytes = metadataBytes + encoder.bytesBesidePicture(width: picture.width, height: picture.height)
        var hints = sizeHints
        var probed: [Int: Int]?
        if budget.strategy == .binary, let probe = try probe(picture, with: encoder, floor: floor, ceiling: settings.quality,
                                                              pictureBudget: budget.maxBytes - fixedBytes, hints: hints,
                                                              overhead: fixedBytes, lanes: lanes) {
            probes += probe.encodes
            hints = probe.hints
            probed = probe.hints
        }
        let canShrink = budget.allowDownscale && max(picture.width, picture.height) > 16
        /// What the floor gives at full size: measured, or predicted by the probe.
        let floorSize: Int, floorMeasured: Bool
        // A probe that puts even the floor 30% over the budget (its spread is 3-6%) settles that this
        // size cannot fit: shrink without encoding it (--no-downscale wants the measured size instead).
        if canShrink, let predicted = probed?[floor], Double(predicted) > 1.3 * Double(budget.maxBytes) {
            (floorSize, floorMeasured) = (predicted, false)
        } else {
            let result = try searchQuality(floor: floor, ceiling: settings.quality, budget: budget.maxBytes,
                                           strategy: budget.strategy, model: encoder.sizeModel, hints: hints,
                                           overhead: fixedBytes, lanes: lanes) { qualities in
                try encodeSideBySide(qualities) { try encoder.encode(picture, quality: $0, metadata: metadata) }
            }
            encodes += result.encodes
            if let fit = result.fit { return try written(picture, result, fit: fit, metadata: metadata, notes: notes) }
            guard canShrink else {
                throw ImagePrepError(.doesNotFit,
                    "\(picture.width)x\(picture.height) does not fit \(budget.formatted): the smallest is \(result.smallestSize) bytes at quality \(floor)" + (budget.allowDownscale ? "" : " (--no-downscale)"))
            }
            (floorSize, floorMeasured) = (result.sizes[floor] ?? result.smallestSize, true)
        }

        // The largest size that fits at the floor; then, at that size, one encode at the highest quality
        // predicted to fit (the size's 10% margin may leave room for a few qualities more), kept if it fits.
        let largest = try largestFitting(picture, with: encoder, quality: floor, budget: budget,
                                         notFitting: (max(picture.width, picture.height), floorSize), notFittingMeasured: floorMeasured,
                                         metadataBytes: metadataBytes, threads: threads, metadata: metadata(for:))
        encodes += largest.encodes
        if largest.image.width == picture.width && largest.image.height == picture.height {
            // The probe was wrong and the whole picture fits at the floor: its quality is searched as usual.
            let result = try searchQuality(floor: floor, ceiling: settings.quality, budget: budget.maxBytes,
                                           strategy: budget.strategy, model: encoder.sizeModel, hints: hints,
                                           overhead: fixedBytes, lanes: lanes, known: [floor: largest.bytes]) { qualities in
                try encodeSideBySide(qualities) { try encoder.encode(picture, quality: $0, metadata: largest.metadata) }
            }
            encodes += result.encodes
            return try written(picture, result, fit: result.fit ?? (floor, largest.bytes), metadata: largest.metadata, notes: largest.notes)
        }
        let image = largest.image
        var result = SearchResult(fit: (floor, largest.bytes), sizes: [floor: largest.bytes.count], encodes: 0)
        let estimate = SizeEstimate(model: encoder.sizeModel, budget: budget.maxBytes,
                                    overhead: encoder.metadataBytes(largest.metadata)
                                        + encoder.bytesBesidePicture(width: image.width, height: image.height), hints: [:])
        // Only when it is predicted a few qualities up: the size's margin is often too thin for one more.
        if floor < settings.quality, let predicted = estimate.boundary(low: floor, high: settings.quality + 1, measured: result.sizes),
           predicted >= floor + 3, !encoder.sizeModel.sameSetting(as: predicted).contains(floor) {
            let bytes = try encoder.encode(image, quality: predicted, metadata: largest.metadata)
            encodes += 1
            for same in encoder.sizeModel.sameSetting(as: predicted).clamped(to: floor...settings.quality) {
                result.sizes[same] = bytes.count
            }
            if bytes.count <= budget.maxBytes {
                result.fit = (encoder.sizeModel.sameSetting(as: predicted).clamped(to: floor...settings.quality).upperBound, bytes)
            }
        }
        return try written(image, result, fit: result.fit ?? (floor, largest.bytes), metadata: largest.metadata, notes: largest.notes)
    }

    /// The largest size of `picture` whose encode at `quality` fits the budget, such that a long edge 10%
    /// longer does not (measured, or beyond a size that did not): the output keeps as many pixels as the
    /// budget allows at the lowest quality allowed. `notFitting` is a long edge known not to fit and what
    /// it weighs. Each trial aims a little under the edge predicted to just fit: picture bytes grow as the
    /// edge to a power, 1.5 for photos at first (5% under), then the one measured between the last two
    /// sizes tried (2% under: secant steps). Once one fits, the next is at least 10% longer, so a good
    /// prediction ends with one that fits and one 10% longer that does not.
    static func largestFitting(_ picture: DecodedPixels, with encoder: any ImageEncoding, quality: Int, budget: ByteBudget,
                               notFitting: (edge: Int, bytes: Int), notFittingMeasured: Bool, metadataBytes: Int, threads: Int,
                               metadata: (DecodedPixels) -> (metadata: ImageMetadata, warnings: [String]))
        throws -> (image: DecodedPixels, bytes: [UInt8], metadata: ImageMetadata, notes: [String], encodes: Int)
    {
        func grown(_ edge: Int) -> Int { Int((Double(edge) * 1.1).rounded(.up)) }
        let pictureBudget = Double(max(budget.maxBytes - metadataBytes, 1))
        func pictureBytes(_ bytes: Int) -> Double { Double(max(bytes - metadataBytes, 1)) }
        var high = notFitting
        var low: (edge: Int, bytes: [UInt8], image: DecodedPixels, metadata: ImageMetadata, notes: [String])?
        var tried: [(edge: Int, bytes: Int)] = []
        var encodes = 0
        var highMeasured = notFittingMeasured
        while true {
            if let low, low.edge >= notFitting.edge || (highMeasured && high.edge <= grown(low.edge)) {
                return (low.image, low.bytes, low.metadata, low.notes, encodes)
            }
            // Secant steps: from the last size tried, along the slope between the last two.
            var exponent = 2 * sizeExponent
            let anchor = tried.last ?? high
            if tried.count >= 1, let before = tried.dropLast().last ?? Optional(notFitting), before.edge != anchor.edge {
                let measured = log(pictureBytes(anchor.bytes) / pictureBytes(before.bytes)) / log(Double(anchor.edge) / Double(before.edge))
                exponent = min(max(measured, 0.8), 4)
            }
            let exact = Double(anchor.edge) * pow(pictureBudget / pictureBytes(anchor.bytes), 1 / exponent)
            // 5% under the first prediction (a power assumed), 2% under later ones (a power measured).
            var edge = max(16, Int(exact / (tried.isEmpty ? 1.05 : 1.02)))
            // A secant through sizes where the curve bends can leap: at most half as long again as what fit.
            if let low { edge = max(min(edge, low.edge * 3 / 2), grown(low.edge)) }
            edge = min(edge, high.edge - 1)
            // A size the probe only predicted not to fit is measured before it settles the answer.
            if let low, !highMeasured, high.edge <= grown(low.edge) { edge = high.edge }
            if let low, edge <= low.edge { return (low.image, low.bytes, low.metadata, low.notes, encodes) }
            guard edge >= 16 else {
                throw ImagePrepError(.doesNotFit,
                    "\(picture.width)x\(picture.height) does not fit \(budget.formatted) even at 16 pixels: the smallest is \(high.bytes) bytes at quality \(quality)")
            }
            let target = fittedSize(width: picture.width, height: picture.height, maxDimension: edge)
            let image = picture.resized(width: target.width, height: target.height, threads: threads)
            let (imageMetadata, notes) = metadata(image)
            let bytes = try encoder.encode(image, quality: quality, metadata: imageMetadata)
            encodes += 1
            tried.append((edge, bytes.count))
            if bytes.count <= budget.maxBytes {
                low = (edge, bytes, image, imageMetadata, notes)
            } else {
                high = (edge, bytes.count)
                highMeasured = true
            }
        }
    }

    /// Of two encodes of `picture` at one quality, the smaller, unless the larger is more faithful by at
    /// least 5 dB of PSNR per doubling of size (about what JPEG gains from more bytes at these qualities):
    /// the output is never larger than another choice for the same fidelity. Transposed tables on a turned
    /// JPEG are both smaller and closer to the source near its own quality, but at about twice its
    /// quantiser steps they round many coefficients up and lose on both counts (+17% at quality 48 on a
    /// quality 73 photo).
    static func better(_ a: [UInt8], _ encoderA: any ImageEncoding, _ b: [UInt8], _ encoderB: any ImageEncoding,
                       picture: DecodedPixels) -> [UInt8] {
        let (small, large, smallEncoder, largeEncoder) = a.count <= b.count ? (a, b, encoderA, encoderB) : (b, a, encoderB, encoderA)
        guard large.count > small.count,
              let smallError = smallEncoder.meanSquaredError(of: small, from: picture),
              let largeError = largeEncoder.meanSquaredError(of: large, from: picture), largeError < smallError
        else { return small }
        let gain = 10 * log10(smallError / max(largeError, 1e-9))
        return gain >= 5 * log2(Double(large.count) / Double(small.count)) ? large : small
    }

    /// Searches a mosaic of crops of `picture` (a sixteenth of it, see ProbeMosaic) for the budget scaled to
    /// its area: the sizes found, scaled back, are hints that aim the trials on the whole picture. Nil for
    /// pictures too small to be worth it (their own encodes are cheap).
    static func probe(_ picture: DecodedPixels, with encoder: any ImageEncoding, floor: Int, ceiling: Int, pictureBudget: Int,
                      hints: [Int: Int], overhead: Int, lanes: Int) throws -> (hints: [Int: Int], encodes: Int)? {
        guard let mosaic = ProbeMosaic(picture) else { return nil }
        let scale = mosaic.areaRatio * encoder.sizeModel.probeRatio
        let mosaicBudget = max(1, Int(Double(pictureBudget) / scale))
        let mosaicHints = hints.mapValues { max(1, Int(Double($0 - overhead) / scale)) }
        let result = try searchQuality(floor: floor, ceiling: ceiling, budget: mosaicBudget, strategy: .binary,
                                       model: encoder.sizeModel, hints: mosaicHints, lanes: lanes) { qualities in
            try encodeSideBySide(qualities) { try encoder.pictureEncoder.encode(mosaic.picture, quality: $0, metadata: ImageMetadata()) }
        }
        return (result.sizes.mapValues { overhead + Int(Double($0) * scale) }, result.encodes)
    }

    /// Runs `encode` for each quality, on as many threads as there are qualities; results in order.
    static func encodeSideBySide(_ qualities: [Int], _ encode: @Sendable (Int) throws -> [UInt8]) throws -> [[UInt8]] {
        guard qualities.count > 1 else { return try qualities.map(encode) }
        var results = [Result<[UInt8], any Error>](repeating: .success([]), count: qualities.count)
        results.withUnsafeMutableBufferPointer { slots in
            let shared = SharedPointer(slots.baseAddress!)   // count > 1: not empty
            DispatchQueue.concurrentPerform(iterations: qualities.count) { index in
                shared.pointer[index] = Result { try encode(qualities[index]) }
            }
        }
        return try results.map { try $0.get() }
    }
}
