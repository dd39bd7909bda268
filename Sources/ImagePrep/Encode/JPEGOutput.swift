import Foundation

/// Encodes the final JPEG: once at the requested quality, or by searching for the highest quality
/// that fits the byte budget, shrinking the picture when even the lowest allowed quality is too big.
enum JPEGOutput {
    /// JPEG bytes ∝ pixels^sizeExponent when a photo is shrunk.
    static let sizeExponent = 0.75

    /// - Parameter sizeHints: predicted sizes by quality for this picture, to aim the first trial.
    /// - Parameter picture: upright, opaque, at its final size unless the budget forces shrinking;
    ///   Y'CbCr planes only when the output is 4:2:0 too.
    static func encode(_ picture: DecodedPixels, metadata source: ImageMetadata, settings: ConversionSettings,
                       warnings: [String], sizeHints: [Int: Int] = [:]) throws -> PreparedImage {
        let encoder = JPEGEncoder()
        func encode(_ picture: DecodedPixels, quality: Int, settings jpegSettings: JPEGSettings,
                    segments: [JPEGSegment]) throws -> [UInt8] {
            switch picture {
            case .rgb(let image): try encoder.encode(image, quality: quality, settings: jpegSettings, segments: segments)
            case .rgbPlanes(let planes): try encoder.encode(planes, quality: quality, settings: jpegSettings, segments: segments)
            case .ycbcr420(let planes): try encoder.encode(planes, quality: quality, settings: jpegSettings, segments: segments)
            }
        }
        // Metadata is rebuilt for each size tried, since EXIF records the pixel dimensions.
        func segments(for image: DecodedPixels) -> (segments: [JPEGSegment], warnings: [String]) {
            var metadataWarnings: [String] = []
            let metadata = OutputMetadata.prepare(source, for: .jpeg, width: image.width, height: image.height,
                                                  settings: settings, warnings: &metadataWarnings)
            return (JPEGSegment.segments(for: metadata), metadataWarnings)
        }
        func prepared(_ image: DecodedPixels, _ bytes: [UInt8], quality: Int, encodes: Int, notes: [String]) -> PreparedImage {
            PreparedImage(bytes: bytes, format: .jpeg, width: image.width, height: image.height, quality: quality,
                          encodes: encodes, passedThrough: false, warnings: warnings + notes)
        }

        guard let budget = settings.budget else {
            let (segments, notes) = segments(for: picture)
            let bytes = try encode(picture, quality: settings.quality, settings: settings.jpegSettings(searching: false),
                                   segments: segments)
            return prepared(picture, bytes, quality: settings.quality, encodes: 1, notes: notes)
        }

        let floor = min(budget.minQuality, settings.quality)
        let jpegSettings = settings.jpegSettings(searching: true)
        var image = picture
        var encodes = 0
        var hints = sizeHints
        while true {
            let (segments, notes) = segments(for: image)
            let metadataBytes = segments.reduce(0) { $0 + $1.payload.count + 4 }
            if metadataBytes + 1024 > budget.maxBytes {
                throw ImagePrepError(.doesNotFit,
                    "the metadata alone (EXIF, XMP, ICC) is \(metadataBytes) bytes, too close to \(ByteSize.format(budget.maxBytes)); try --strip-metadata")
            }
            let current = image
            let result = try searchQuality(floor: floor, ceiling: settings.quality, budget: budget.maxBytes,
                                           strategy: budget.strategy, hints: hints, overhead: metadataBytes) { quality in
                try encode(current, quality: quality, settings: jpegSettings, segments: segments)
            }
            encodes += result.encodes
            if var fit = result.fit {
                // Transposed tables match a re-encode of the unturned file; the standard ones win on some
                // pictures, so one step higher is tried with them too, unless that step was far over
                // budget (the two differ by a few percent: up to 6% on corpus photos).
                let nextSize = result.sizes[fit.quality + 1].map(Double.init) ?? 0
                if jpegSettings.transposedQuantization, fit.quality < settings.quality,
                   nextSize <= Double(budget.maxBytes) * 1.08 {
                    var standard = jpegSettings
                    standard.transposedQuantization = false
                    let bytes = try encode(current, quality: fit.quality + 1, settings: standard, segments: segments)
                    encodes += 1
                    if bytes.count <= budget.maxBytes { fit = (fit.quality + 1, bytes) }
                }
                var notes = notes
                if current.width != picture.width {
                    notes.append("\(picture.width)x\(picture.height) does not fit \(ByteSize.format(budget.maxBytes)) at quality \(floor); wrote \(current.width)x\(current.height) at quality \(fit.quality)")
                }
                return prepared(current, fit.bytes, quality: fit.quality, encodes: encodes, notes: notes)
            }
            guard budget.allowDownscale, max(current.width, current.height) > 16 else {
                throw ImagePrepError(.doesNotFit,
                    "\(current.width)x\(current.height) does not fit \(ByteSize.format(budget.maxBytes)): the smallest is \(result.smallestSize) bytes at quality \(floor)" + (budget.allowDownscale ? "" : " (--no-downscale)"))
            }
            // Picture bytes grow about as pixels^0.75 (smaller pictures keep more detail per pixel, measured
            // on corpus photos), so the long edge shrinks by the overshoot to the power 1/1.5, a little more so
            // one step usually lands under.
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
}
