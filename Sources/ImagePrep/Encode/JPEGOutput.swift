/// Encodes the final JPEG: once at the requested quality, or by searching for the highest quality
/// that fits the byte budget, shrinking the picture when even the lowest allowed quality is too big.
enum JPEGOutput {
    static func encode(_ upright: PixelBuffer, metadata source: ImageMetadata, settings: ConversionSettings,
                       warnings: [String]) throws -> PreparedImage {
        let encoder = JPEGEncoder()
        var warnings = warnings
        var image = upright
        var metadataWarnings: [String] = []
        func segments(for image: PixelBuffer) -> [JPEGSegment] {
            metadataWarnings = []
            let metadata = OutputMetadata.prepare(source, for: .jpeg, width: image.width, height: image.height,
                                                  settings: settings, warnings: &metadataWarnings)
            return JPEGSegment.segments(for: metadata)
        }

        guard let budget = settings.budget else {
            let bytes = try encoder.encode(image, quality: settings.quality, settings: settings.jpeg, segments: segments(for: image))
            return PreparedImage(bytes: bytes, format: .jpeg, width: image.width, height: image.height,
                                 quality: settings.quality, encodes: 1, passedThrough: false,
                                 warnings: warnings + metadataWarnings)
        }

        let floor = min(budget.minQuality, settings.quality)
        var encodes = 0
        while true {
            let imageSegments = segments(for: image)
            let current = image
            let result = try searchQuality(floor: floor, ceiling: settings.quality, budget: budget.maxBytes,
                                           strategy: budget.strategy) { quality in
                try encoder.encode(current, quality: quality, settings: settings.jpeg, segments: imageSegments)
            }
            encodes += result.encodes
            if let fit = result.fit {
                if current.width != upright.width || current.height != upright.height {
                    warnings.append("\(upright.width)x\(upright.height) does not fit \(ByteSize.format(budget.maxBytes)) at quality \(floor); wrote \(current.width)x\(current.height) at quality \(fit.quality)")
                }
                return PreparedImage(bytes: fit.bytes, format: .jpeg, width: current.width, height: current.height,
                                     quality: fit.quality, encodes: encodes, passedThrough: false,
                                     warnings: warnings + metadataWarnings)
            }
            let headerBytes = imageSegments.reduce(0) { $0 + $1.payload.count + 4 } + 20
            guard budget.allowDownscale, budget.maxBytes > headerBytes + 512, max(image.width, image.height) > 16 else {
                throw ImagePrepError(.doesNotFit,
                    "\(current.width)x\(current.height) does not fit \(ByteSize.format(budget.maxBytes)): the smallest is \(result.smallestSize) bytes at quality \(floor)" + (budget.allowDownscale ? "" : " (--no-downscale)"))
            }
            // Picture bytes scale roughly with the pixel count: shrink the long edge by the square root of
            // the overshoot, a little more to land under in one step most of the time.
            let pictureBudget = Double(budget.maxBytes - headerBytes)
            let pictureSize = Double(max(result.smallestSize - headerBytes, 1))
            let factor = min(0.95, (pictureBudget / pictureSize).squareRoot() * 0.97)
            let longEdge = max(16, Int(Double(max(image.width, image.height)) * factor))
            let target = fittedSize(width: upright.width, height: upright.height, maxDimension: longEdge)
            image = resized(upright, width: target.width, height: target.height, threads: settings.threadsPerImage)
        }
    }
}
