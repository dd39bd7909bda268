/// Writes Ultra HDR JPEG (v1.1) the way libultrahdr lays it out: the primary image with the `hdrgm`
/// XMP (version and GContainer directory), the ISO 21496-1 version block and an MPF index in APP2,
/// then the gain-map JPEG (grey, or 4:4:4 colour for a colour map), with the `hdrgm` XMP and the full
/// ISO 21496-1 block holding the same values, and the ICC profile of the HDR rendition where the source's
/// map had one (without it, libultrahdr would show the HDR rendition in another colour space).
enum UltraHDRContainer {
    /// The gain map's JPEG quality (libultrahdr's default), or the picture's when that is lower: the map
    /// never takes bytes the picture gave up.
    static let mapQuality = 85

    /// The gain-map image.
    static func encodeMap(_ map: GainMap, quality: Int = mapQuality) throws -> [UInt8] {
        var settings = JPEGSettings()
        settings.writeJFIF = false
        let segments = [JPEGSegment(marker: JPEGSegment.app1, payload: JPEGSegment.xmpHeader + GainMapXMP.mapPacket(map.metadata)),
                        JPEGSegment(marker: JPEGSegment.app2, payload: ISOGainMapBlock.payload(map.metadata))]
            + (map.alternateICC.map(JPEGSegment.iccSegments) ?? [])
        return try JPEGEncoder(settings: settings).encode(map.plane, quality: quality, settings: settings, segments: segments)
    }

    /// The primary's metadata with the XMP that points to a gain map of `mapLength` bytes.
    static func primaryMetadata(_ metadata: ImageMetadata, mapLength: Int) -> ImageMetadata {
        var copy = metadata
        copy.xmp = GainMapXMP.primaryPacket(metadata.xmp, mapLength: mapLength)
        return copy
    }

    /// Bytes the container adds to the primary besides the map and the XMP: the ISO and MPF segments.
    static let indexBytes = 4 + ISOGainMapBlock.versionPayload.count + 4 + MultiPictureFormat.payloadSize

    /// `primary` (any earlier MPF or ISO segment and anything after its EOI removed) with the ISO and
    /// MPF segments after its last APPn segment, followed by `map`.
    static func assemble(primary: [UInt8], map: [UInt8]) -> [UInt8] {
        let clean = primaryOnly(primary)
        let segments = JPEGSegmentWalk.segments(in: clean)
        let insertAt = segments.last { (0xE0...0xEF).contains($0.marker) }?.whole.upperBound ?? 2
        let iso = segment(JPEGSegment.app2, ISOGainMapBlock.versionPayload)
        let mpfLength = 4 + MultiPictureFormat.payloadSize
        let primarySize = clean.count + iso.count + mpfLength
        let tiffHeader = insertAt + iso.count + 4 + MultiPictureFormat.header.count
        let mpf = segment(JPEGSegment.app2, MultiPictureFormat.payload(primarySize: primarySize, mapSize: map.count,
                                                                       mapOffset: primarySize - tiffHeader))
        return Array(clean[..<insertAt]) + iso + mpf + clean[insertAt...] + map
    }

    /// A JPEG without gain-map structure: no MPF or ISO 21496-1 APP2 segment, nothing after the
    /// primary's EOI (the images an MPF index listed).
    static func primaryOnly(_ jpeg: [UInt8]) -> [UInt8] {
        let segments = JPEGSegmentWalk.segments(in: jpeg)
        let dropped = segments.filter { segment in
            segment.marker == JPEGSegment.app2 && (jpeg[segment.payload].starts(with: MultiPictureFormat.header)
                || jpeg[segment.payload].starts(with: ISOGainMapBlock.header))
        }
        var out: [UInt8] = []
        out.reserveCapacity(jpeg.count)
        var cursor = 0
        for segment in dropped {
            out += jpeg[cursor..<segment.whole.lowerBound]
            cursor = segment.whole.upperBound
        }
        let end = endOfImage(jpeg, after: segments.last?.whole.upperBound ?? 2) ?? jpeg.count
        if cursor < end { out += jpeg[cursor..<end] }
        return out
    }

    /// Just past the first EOI after `start` (inside entropy-coded data 0xFF is always followed by a
    /// stuffed 0 or a restart marker, so the first FF D9 is the end).
    static func endOfImage(_ jpeg: [UInt8], after start: Int) -> Int? {
        var i = max(start, 2)
        while i + 1 < jpeg.count {
            if jpeg[i] == 0xFF, jpeg[i + 1] == 0xD9 { return i + 2 }
            i += 1
        }
        return nil
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// Whether an Ultra HDR file whose map `reading` read and checked states nothing else about gain
    /// maps, so it may leave byte for byte: one MPF index, at most the ISO version block in the primary,
    /// a primary XMP packet that parses with `hdrgm:Version` 1.0 and no Apple claim, no claim in the
    /// extended XMP, and a map image that states its values once.
    static func statesOnlyItsMap(_ file: [UInt8], metadata: ImageMetadata, reading: GainMapReading) -> Bool {
        guard reading.statementsAreClean, let xmp = metadata.xmp, (try? XMPScanner.elements(of: xmp)) != nil,
              XMPValues.text("Version", namespace: GainMapXMP.namespace, in: xmp) == "1.0",
              !containsBytes(xmp, Array(AppleGainMap.xmpNamespace.utf8)),
              metadata.extendedXMP.map({ GainMapClaims.inPacket($0.packet) }) != true else { return false }
        let app2 = JPEGSegmentWalk.segments(in: file).filter { $0.marker == JPEGSegment.app2 }.map { Array(file[$0.payload]) }
        let mpf = app2.filter { $0.starts(with: MultiPictureFormat.header) }
        let iso = app2.filter { $0.starts(with: ISOGainMapBlock.header) }
        return mpf.count == 1 && iso.allSatisfy { $0 == ISOGainMapBlock.versionPayload } && iso.count <= 1
    }

    /// The gain map an Ultra HDR JPEG's MPF index points to, if any.
    static func written(in jpeg: [UInt8]) -> WrittenGainMap? {
        let reading = JPEGGainMapReader.read(jpeg, primaryEXIF: nil, decodes: false)
        guard let range = MultiPictureFormat.secondaryImages(in: jpeg).first, let size = reading.storedSize,
              let headroom = reading.headroom else { return nil }
        return WrittenGainMap(width: size.width, height: size.height, bytes: range.count,
                              quality: JPEGMarkers.estimatedQuality(of: Array(jpeg[range])) ?? UltraHDRContainer.mapQuality,
                              headroom: headroom)
    }
}
