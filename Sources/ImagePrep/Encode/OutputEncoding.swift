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
        var image = picture
        var encodes = 0, probes = 0
        var hints = sizeHints
        while true {
            let (metadata, notes) = metadata(for: image)
            let metadataBytes = encoder.metadataBytes(metadata)
            if metadataBytes + 1024 > budget.maxBytes {
                throw ImagePrepError(.doesNotFit,
                    "the metadata alone (EXIF, XMP, ICC, IPTC, comments) is \(metadataBytes) bytes, too close to \(budget.formatted); try --strip-metadata")
            }
            let current = image
            var probed: [Int: Int]?
            if budget.strategy == .binary, let probe = try probe(current, with: encoder, floor: floor, ceiling: settings.quality,
                                                                  pictureBudget: budget.maxBytes - metadataBytes, hints: hints,
                                                                  overhead: metadataBytes, lanes: lanes) {
                probes += probe.encodes
                hints = probe.hints
                probed = probe.hints
            }
            // A probe that puts even the floor 30% over the budget (its spread is 3-6%) settles that this
            // size cannot fit: shrink without encoding it (--no-downscale wants the measured size instead).
            if budget.allowDownscale, let floorSize = probed?[floor], Double(floorSize) > 1.3 * Double(budget.maxBytes),
               max(current.width, current.height) > 16 {
                (image, hints) = shrunk(picture, from: current, smallestSize: floorSize, predicted: true, sizes: probed ?? [:],
                                        metadataBytes: metadataBytes, budget: budget.maxBytes, threads: threads)
                continue
            }
            let result = try searchQuality(floor: floor, ceiling: settings.quality, budget: budget.maxBytes,
                                           strategy: budget.strategy, model: encoder.sizeModel, hints: hints,
                                           overhead: metadataBytes, lanes: lanes) { qualities in
                try encodeSideBySide(qualities) { try encoder.encode(current, quality: $0, metadata: metadata) }
            }
            encodes += result.encodes
            if var fit = result.fit {
                // The alternative differs by a few percent (up to 6% on corpus photos for JPEG's tables), so
                // it is not worth an encode when the next quality was far over budget.
                let nextSize = result.sizes[fit.quality + 1].map(Double.init) ?? 0
                if let alternative = encoder.alternative, fit.quality < settings.quality,
                   nextSize <= Double(budget.maxBytes) * 1.08 {
                    let bytes = try alternative.encode(current, quality: fit.quality + 1, metadata: metadata)
                    encodes += 1
                    if bytes.count <= budget.maxBytes { fit = (fit.quality + 1, bytes) }
                }
                var notes = notes
                if current.width != picture.width {
                    notes.append("\(picture.width)x\(picture.height) does not fit \(budget.formatted) at quality \(floor); wrote \(current.width)x\(current.height) at quality \(fit.quality)")
                }
                return prepared(current, fit.bytes, quality: fit.quality, encodes: encodes, probes: probes, notes: notes)
            }
            guard budget.allowDownscale, max(current.width, current.height) > 16 else {
                throw ImagePrepError(.doesNotFit,
                    "\(current.width)x\(current.height) does not fit \(budget.formatted): the smallest is \(result.smallestSize) bytes at quality \(floor)" + (budget.allowDownscale ? "" : " (--no-downscale)"))
            }
            (image, hints) = shrunk(picture, from: current, smallestSize: result.smallestSize, sizes: result.sizes,
                                    metadataBytes: metadataBytes, budget: budget.maxBytes, threads: threads)
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

    /// The next size to try when `current` does not fit even at the floor (`smallestSize` bytes), and
    /// what `sizes` predict it to weigh (hints for its search; a probe of the new size refines them).
    /// Picture bytes grow about as pixels^0.75 (smaller pictures keep more detail per pixel), so the long
    /// edge shrinks by the overshoot to the power 1/1.5, a little more so one step usually lands under: 3%
    /// after a measured size, 7% after a probe's prediction (whose spread is 3-6%).
    static func shrunk(_ picture: DecodedPixels, from current: DecodedPixels, smallestSize: Int, predicted: Bool = false,
                       sizes: [Int: Int], metadataBytes: Int, budget: Int, threads: Int) -> (DecodedPixels, [Int: Int]) {
        let pictureBudget = Double(budget - metadataBytes)
        let pictureSize = Double(max(smallestSize - metadataBytes, 1))
        let factor = min(0.95, pow(pictureBudget / pictureSize, 1 / (2 * sizeExponent)) * (predicted ? 0.93 : 0.97))
        let target = fittedSize(width: picture.width, height: picture.height,
                                maxDimension: max(16, Int(Double(max(current.width, current.height)) * factor)))
        let image = picture.resized(width: target.width, height: target.height, threads: threads)
        let areaRatio = Double(image.width * image.height) / Double(current.width * current.height)
        return (image, sizes.mapValues { metadataBytes + Int(Double(max($0 - metadataBytes, 0)) * pow(areaRatio, sizeExponent)) })
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
            try encodeSideBySide(qualities) { try encoder.encode(mosaic.picture, quality: $0, metadata: ImageMetadata()) }
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
