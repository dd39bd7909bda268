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
            if let layout {
                reading.storedSize = (layout.width, layout.height)
                reading.storedChannels = layout.components
            }
            var values: Result<GainMapMetadata, GainMapProblem>?
            var appleHeadroom: Result<Double, GainMapProblem>?
            if statements.origin == .appleMPF {
                appleHeadroom = AppleGainMap.checkedHeadroom(AppleGainMap.headroom(mapXMP: statements.xmp, exif: primaryEXIF))
            } else {
                values = statements.values()
            }
            switch (values, appleHeadroom) {
            case (.success(let metadata)?, _):
                reading.headroom = metadata.headroom
                reading.perChannelValues = metadata.isPerChannel
            case (_, .success(let headroom)?): reading.headroom = headroom
            case (.failure(let problem)?, _), (_, .failure(let problem)?): reading.problem = problem.description
            default: break
            }
            if reading.problem == nil, let layout, let problem = Self.channelProblem(layout.components, origin: statements.origin) {
                reading.problem = problem
            }
            // ISO 21496-1's channel count is the map's: readers differ on three sets of values for a grey
            // map (libultrahdr uses the first alone), so it is refused rather than guessed.
            if reading.problem == nil, reading.perChannelValues, layout?.components == 1 {
                reading.problem = "it states values for three channels, but the map image is grey"
            }
            if reading.problem == nil, layout == nil { reading.problem = "the gain map's JPEG header cannot be read" }
            if reading.problem != nil { reading.headroom = nil }
            // Per-channel values leave as imgprep writes them (in the ISO block too): libultrahdr reads them
            // from the ISO block only.
            let perChannelAsWritten = !reading.perChannelValues || statements.iso != nil
            reading.statementsAreClean = reading.problem == nil && statements.areClean && perChannelAsWritten
            guard decodes, reading.problem == nil else { return reading }
            // A map is never larger than its picture: anything else is refused before decoding (bombs).
            let primary = try? JPEGDecoder.dimensions(of: file)
            guard let size = reading.storedSize, let primary, size.width * size.height <= primary.width * primary.height else {
                reading.problem = "the gain map is larger than the picture"
                return reading
            }
            do {
                let plane = try samples(image, colour: reading.storedChannels == 3)
                switch (values, appleHeadroom) {
                case (.success(let metadata)?, _):
                    let (own, warnings) = JPEGMarkers.metadata(in: image, profileModels: [.rgb])
                    reading.warnings += warnings.map { "the gain map's \($0)" }
                    reading.gainMap = GainMap(plane: plane,
                                              metadata: metadata, origin: statements.origin, alternateICC: own.icc)
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

    /// Why a map image of `components` channels cannot be carried: Ultra HDR and ISO 21496-1 maps are
    /// grey or colour (red, green, blue); Apple's are grey.
    static func channelProblem(_ components: Int, origin: GainMapOrigin) -> String? {
        switch (components, origin) {
        case (1, _), (3, .ultraHDR), (3, .iso21496): nil
        case (3, _): "the Apple gain map has 3 colour channels (its format has one)"
        case (4, _): "the gain map is a CMYK image"
        default: "the gain map has \(components) channels (a gain map has one, or three for red, green and blue)"
        }
    }

    /// The map's samples: red, green and blue for a colour (three-component) JPEG, else grey.
    static func samples(_ jpeg: [UInt8], colour: Bool) throws -> GainMapPlane {
        let decoded = try JPEGDecoder.decode(jpeg)
        if colour {
            return GainMapPlane(width: decoded.width, height: decoded.height, channels: 3, pixels: decoded.pixels)
        }
        var samples = [UInt8](repeating: 0, count: decoded.width * decoded.height)
        decoded.pixels.withUnsafeBufferPointer { rgb in
            for index in samples.indices { samples[index] = rgb[index * 3 + 1] }
        }
        return GainMapPlane(width: decoded.width, height: decoded.height, pixels: samples)
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
