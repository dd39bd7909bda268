/// Finds the gain map of a JPEG: an image after the first (listed in MPF) that carries Ultra HDR's
/// `hdrgm` XMP or an ISO 21496-1 block (whose values win where both exist, as in libultrahdr; the two
/// must agree), or Apple's `HDRGainMap` XMP (headroom from that XMP or the primary's MakerNote, see
/// AppleGainMap). Every value goes through `GainMapMetadata.validated`; a map whose values or
/// structure fail is left out, with the reason in `problem`.
enum JPEGGainMapReader {
    /// - Parameter decodes: decode the map's pixels too (else only say what there is).
    static func read(_ file: [UInt8], primaryEXIF: [UInt8]?, decodes: Bool) -> GainMapReading {
        for range in MultiPictureFormat.secondaryImages(in: file) {
            let image = Array(file[range])
            guard let statements = MapImageStatements(image) else { continue }
            var reading = GainMapReading(origin: statements.origin)
            let layout = try? JPEGDecoder.layout(of: image)
            if let layout { reading.storedSize = (layout.width, layout.height) }
            var values: Result<GainMapMetadata, GainMapProblem>?
            var appleHeadroom: Result<Double, GainMapProblem>?
            if statements.origin == .appleMPF {
                appleHeadroom = AppleGainMap.checkedHeadroom(AppleGainMap.headroom(mapXMP: statements.xmp, exif: primaryEXIF))
            } else {
                values = statements.values()
            }
            switch (values, appleHeadroom) {
            case (.success(let metadata)?, _): reading.headroom = metadata.headroom
            case (_, .success(let headroom)?): reading.headroom = headroom
            case (.failure(let problem)?, _), (_, .failure(let problem)?): reading.problem = problem.description
            default: break
            }
            if reading.problem == nil, let layout, layout.components != 1 {
                reading.problem = "the gain map has \(layout.components) colour channels (imgprep carries grey maps)"
            }
            if reading.problem == nil, layout == nil { reading.problem = "the gain map's JPEG header cannot be read" }
            if reading.problem != nil { reading.headroom = nil }
            reading.statementsAreClean = reading.problem == nil && statements.areClean
            guard decodes, reading.problem == nil else { return reading }
            // A map is never larger than its picture: anything else is refused before decoding (bombs).
            let primary = try? JPEGDecoder.dimensions(of: file)
            guard let size = reading.storedSize, let primary, size.width * size.height <= primary.width * primary.height else {
                reading.problem = "the gain map is larger than the picture"
                return reading
            }
            do {
                let plane = try grey(image)
                switch (values, appleHeadroom) {
                case (.success(let metadata)?, _):
                    reading.gainMap = GainMap(plane: plane, metadata: metadata, origin: statements.origin)
                case (_, .success(let headroom)?):
                    reading.gainMap = AppleGainMap.gainMap(plane: plane, headroom: headroom, origin: statements.origin)
                default: break
                }
            } catch {
                reading.warnings.append("the gain map cannot be decoded (\(error)); it is left out")
            }
            return reading
        }
        var none = GainMapReading()
        if GainMapClaims.inJPEGHeader(file) { none.problem = "the file claims one but holds no gain-map image" }
        return none
    }

    /// The first channel of the decode: the grey samples of a one-component JPEG.
    static func grey(_ jpeg: [UInt8]) throws -> GrayPlane {
        let decoded = try JPEGDecoder.decode(jpeg)
        var samples = [UInt8](repeating: 0, count: decoded.width * decoded.height)
        decoded.pixels.withUnsafeBufferPointer { rgb in
            for index in samples.indices { samples[index] = rgb[index * 3 + 1] }
        }
        return GrayPlane(width: decoded.width, height: decoded.height, pixels: samples)
    }
}

/// What a gain-map image says about itself: its first XMP packet and ISO 21496-1 block, and how many
/// of each it has (a second one would be read by some readers and not others).
private struct MapImageStatements {
    var xmp: [UInt8]?
    var iso: [UInt8]?
    var origin: GainMapOrigin
    private var xmpCount = 0
    private var isoCount = 0

    /// nil for an image that claims no gain map (an MPF preview, say).
    init?(_ image: [UInt8]) {
        for segment in JPEGSegmentWalk.segments(in: image) {
            let payload = image[segment.payload]
            if segment.marker == JPEGSegment.app1, payload.starts(with: JPEGSegment.xmpHeader) {
                if xmp == nil { xmp = Array(payload.dropFirst(JPEGSegment.xmpHeader.count)) }
                xmpCount += 1
            } else if segment.marker == JPEGSegment.app2, payload.starts(with: ISOGainMapBlock.header) {
                if iso == nil { iso = Array(payload) }
                isoCount += 1
            }
        }
        let ultraHDR = iso != nil || xmp.map(GainMapClaims.mentionsHDRGainMap) == true
        let apple = xmp.map { containsBytes($0, Array(AppleGainMap.xmpNamespace.utf8)) } == true
        guard ultraHDR || apple else { return nil }
        origin = iso.flatMap(ISOGainMapBlock.metadata) != nil ? .iso21496 : ultraHDR ? .ultraHDR : .appleMPF
    }

    /// One statement of each kind at most.
    var areClean: Bool { xmpCount <= 1 && isoCount <= 1 }

    /// The Ultra HDR values: the ISO block's where it has them, and the XMP's must then agree.
    func values() -> Result<GainMapMetadata, GainMapProblem> {
        let fromISO = iso.flatMap(ISOGainMapBlock.metadata)
        let fromXMP = xmp.flatMap(GainMapXMP.metadata)
        switch (fromISO, fromXMP) {
        case (.failure(let problem)?, _), (_, .failure(let problem)?):
            return .failure(problem)
        case (.success(let iso)?, .success(let xmp)?):
            return iso.agrees(with: xmp) ? .success(iso)
                : .failure(GainMapProblem("its XMP and its ISO 21496-1 block state different values"))
        case (.success(let values)?, nil), (nil, .success(let values)?):
            return .success(values)
        case (nil, nil):
            return .failure(GainMapProblem("the gain map image states no values (an ISO 21496-1 version block alone)"))
        }
    }
}
