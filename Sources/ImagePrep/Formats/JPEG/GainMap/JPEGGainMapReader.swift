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
            var statementsAreClean = statements.areClean
            if statements.origin == .appleMPF {
                appleHeadroom = AppleGainMap.checkedHeadroom(AppleGainMap.headroom(mapXMP: statements.xmp, exif: primaryEXIF))
            } else {
                let read = statements.values()
                values = read.result
                statementsAreClean = read.clean
                if case .success = read.result { reading.warnings += read.warnings }
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
            reading.statementsAreClean = reading.problem == nil && statementsAreClean && perChannelAsWritten
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

/// What a gain-map image says about itself: its first XMP packet and its ISO 21496-1 blocks, and how
/// many XMP packets it has (a second one would be read by some readers and not others).
private struct MapImageStatements {
    var xmp: [UInt8]?
    /// Every ISO 21496-1 block, version-only ones included.
    var isoBlocks: [[UInt8]] = []
    var origin: GainMapOrigin
    private var xmpCount = 0

    var iso: [UInt8]? { isoBlocks.first }

    /// nil for an image that claims no gain map (an MPF preview, say).
    init?(_ image: [UInt8]) {
        for segment in JPEGSegmentWalk.segments(in: image) {
            let payload = image[segment.payload]
            if segment.marker == JPEGSegment.app1, payload.starts(with: JPEGSegment.xmpHeader) {
                if xmp == nil { xmp = Array(payload.dropFirst(JPEGSegment.xmpHeader.count)) }
                xmpCount += 1
            } else if segment.marker == JPEGSegment.app2, payload.starts(with: ISOGainMapBlock.header) {
                isoBlocks.append(Array(payload))
            }
        }
        let ultraHDR = !isoBlocks.isEmpty || xmp.map(GainMapClaims.mentionsHDRGainMap) == true
        let apple = xmp.map { containsBytes($0, Array(AppleGainMap.xmpNamespace.utf8)) } == true
        guard ultraHDR || apple else { return nil }
        origin = isoBlocks.contains { ISOGainMapBlock.read($0) != nil } ? .iso21496 : ultraHDR ? .ultraHDR : .appleMPF
    }

    /// The values a reader takes, what was passed over on the way, and whether the statements are
    /// clean (each said once, read whole, agreeing), so the image may leave as it came.
    struct Values {
        var result: Result<GainMapMetadata, GainMapProblem>
        var warnings: [String] = []
        var clean = false
    }

    /// The Ultra HDR values. A valid ISO 21496-1 block takes precedence over the XMP (as ISO 21496-1 and
    /// libultrahdr have it): an XMP that fails or disagrees, a block that cannot be read beside a valid
    /// one, bytes after a block's values are passed over, and the file leaves with restated values.
    /// Without a valid block, a full block that fails is the problem (libultrahdr then refuses the
    /// file rather than read the XMP); without any, the XMP's values.
    func values() -> Values {
        let blocks = isoBlocks.compactMap(ISOGainMapBlock.read)   // (version-only blocks state nothing)
        let valid = blocks.compactMap { try? $0.get() }
        let fromXMP = xmp.flatMap(GainMapXMP.metadata)
        if let chosen = valid.first {
            guard valid.allSatisfy({ $0.metadata.agrees(with: chosen.metadata) }) else {
                return Values(result: .failure(GainMapProblem("its ISO 21496-1 blocks state different values")))
            }
            var warnings: [String] = []
            for case .failure(let problem) in blocks {
                warnings.append("the gain map's ISO 21496-1 block that cannot be read is passed over (\(problem.description.replacingOccurrences(of: "its ISO 21496-1 block ", with: "")))")
            }
            switch fromXMP {
            case .failure(let problem)?:
                warnings.append("the gain map's XMP is passed over (\(problem)): its ISO 21496-1 block takes precedence")
            case .success(let values)? where !values.agrees(with: chosen.metadata):
                warnings.append("the gain map's XMP states other values than its ISO 21496-1 block, which takes precedence")
            default: break
            }
            let clean = warnings.isEmpty && xmpCount <= 1 && valid.count == 1 && chosen.trailingBytes == 0
            return Values(result: .success(chosen.metadata), warnings: warnings, clean: clean)
        }
        if case .failure(let problem)? = blocks.first { return Values(result: .failure(problem)) }
        switch fromXMP {
        case .failure(let problem)?: return Values(result: .failure(problem))
        case .success(let values)?: return Values(result: .success(values), clean: xmpCount <= 1 && isoBlocks.count <= 1)
        case nil:
            return Values(result: .failure(GainMapProblem("the gain map image states no values (an ISO 21496-1 version block alone)")))
        }
    }

    /// For Apple's maps, which state no Ultra HDR values: one statement of each kind at most.
    var areClean: Bool { xmpCount <= 1 && isoBlocks.count <= 1 }
}
