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
                       settings: ConversionSettings, warnings: [String], sizeHints: [Int: Int] = [:]) throws -> PreparedImage {
        // Metadata is rebuilt for each size tried, since EXIF records the pixel dimensions.
        func metadata(for image: DecodedPixels) -> (metadata: ImageMetadata, warnings: [String]) {
            var metadataWarnings: [String] = []
            let metadata = OutputMetadata.prepare(source, for: encoder, width: image.width, height: image.height,
                                                  settings: settings, warnings: &metadataWarnings)
            return (metadata, metadataWarnings)
        }
        func prepared(_ image: DecodedPixels, _ bytes: [UInt8], quality: Int?, encodes: Int, notes: [String]) -> PreparedImage {
            PreparedImage(bytes: bytes, format: encoder.format, width: image.width, height: image.height, quality: quality,
                          encodes: encodes, passedThrough: false, warnings: warnings + notes)
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
        var image = picture
        var encodes = 0
        var hints = sizeHints
        while true {
            let (metadata, notes) = metadata(for: image)
            let metadataBytes = encoder.metadataBytes(metadata)
            if metadataBytes + 1024 > budget.maxBytes {
                throw ImagePrepError(.doesNotFit,
                    "the metadata alone (EXIF, XMP, ICC, IPTC, comments) is \(metadataBytes) bytes, too close to \(budget.formatted); try --strip-metadata")
            }
            let current = image
            let result = try searchQuality(floor: floor, ceiling: settings.quality, budget: budget.maxBytes,
                                           strategy: budget.strategy, model: encoder.sizeModel, hints: hints,
                                           overhead: metadataBytes) { quality in
                try encoder.encode(current, quality: quality, metadata: metadata)
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
                return prepared(current, fit.bytes, quality: fit.quality, encodes: encodes, notes: notes)
            }
            guard budget.allowDownscale, max(current.width, current.height) > 16 else {
                throw ImagePrepError(.doesNotFit,
                    "\(current.width)x\(current.height) does not fit \(budget.formatted): the smallest is \(result.smallestSize) bytes at quality \(floor)" + (budget.allowDownscale ? "" : " (--no-downscale)"))
            }
            // Picture bytes grow about as pixels^0.75 (smaller pictures keep more detail per pixel), so the
            // long edge shrinks by the overshoot to the power 1/1.5, a little more so one step usually lands under.
            let pictureBudget = Double(budget.maxBytes - metadataBytes)
            let pictureSize = Double(max(result.smallestSize - metadataBytes, 1))
            let factor = min(0.95, pow(pictureBudget / pictureSize, 1 / (2 * sizeExponent)) * 0.97)
            let target = fittedSize(width: picture.width, height: picture.height,
                                    maxDimension: max(16, Int(Double(max(current.width, current.height)) * factor)))
            image = picture.resized(width: target.width, height: target.height, threads: settings.threadsPerImage)
            // What this size is likely to weigh, to aim the next search's first encode.
            let areaRatio = Double(image.width * image.height) / Double(current.width * current.height)
            hints = result.sizes.mapValues { metadataBytes + Int(Double($0 - metadataBytes) * pow(areaRatio, sizeExponent)) }
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
}
