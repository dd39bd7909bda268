import Foundation

extension BudgetSearch {
    /// When even the floor is over budget at full size (`floorSize`, measured or predicted): the largest
    /// size that fits at the floor; then, at that size, one encode at the highest quality predicted to fit
    /// (the size's 10% margin may leave room for a few qualities more), kept if it fits.
    /// `encodes`: those made at full size.
    func shrunk(floorSize: Int, measured: Bool, hints: [Int: Int], fixedBytes: Int, metadataBytes: Int,
                encodes: Int) throws -> PreparedImage {
        let (picture, encoder, ceiling) = (job.picture, job.encoder, job.settings.quality)
        let largest = try Self.largestFitting(picture, with: encoder, quality: floor, budget: budget,
                                              notFitting: (max(picture.width, picture.height), floorSize), notFittingMeasured: measured,
                                              metadataBytes: metadataBytes, threads: job.threads, metadata: job.metadata(for:))
        var encodes = encodes + largest.encodes
        if largest.image.width == picture.width && largest.image.height == picture.height {
            // The probe was wrong and the whole picture fits at the floor: its quality is searched as usual.
            let result = try search(picture, metadata: largest.metadata, hints: hints, overhead: fixedBytes, known: [floor: largest.bytes])
            return try written(picture, result, fit: result.fit ?? (floor, largest.bytes), metadata: largest.metadata,
                               notes: largest.notes, encodes: encodes + result.encodes)
        }
        let image = largest.image
        var result = SearchResult(fit: (floor, largest.bytes), sizes: [floor: largest.bytes.count], encodes: 0)
        let estimate = SizeEstimate(model: model, budget: budget.maxBytes,
                                    overhead: encoder.metadataBytes(largest.metadata)
                                        + encoder.bytesBesidePicture(width: image.width, height: image.height), hints: [:])
        // Only when it is predicted a few qualities up: the size's margin is often too thin for one more.
        if floor < ceiling, let predicted = estimate.boundary(low: floor, high: ceiling + 1, measured: result.sizes),
           predicted >= floor + 3, !model.sameSetting(as: predicted).contains(floor) {
            let bytes = try encoder.encode(image, quality: predicted, metadata: largest.metadata)
            encodes += 1
            let same = model.sameSetting(as: predicted).clamped(to: floor...ceiling)
            for quality in same { result.sizes[quality] = bytes.count }
            if bytes.count <= budget.maxBytes { result.fit = (same.upperBound, bytes) }
        }
        return try written(image, result, fit: result.fit ?? (floor, largest.bytes), metadata: largest.metadata,
                           notes: largest.notes, encodes: encodes)
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
            var exponent = 2 * OutputEncoding.sizeExponent
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
}
