/// Whether an output carries the source's gain map, and what the user is told when it does not.
enum GainMapPlan {
    /// Only JPEG can carry a gain map with Debian 12's libraries (libheif 1.15 and libavif 0.11 write
    /// no `tmap` item; PNG and WebP have no gain-map format): see each writer's `carriesGainMap`.
    static func writes(_ settings: ConversionSettings) -> Bool {
        settings.hdr == .keep && settings.format.writer.traits.carriesGainMap
    }

    /// Warnings for a gain map that the output leaves out.
    static func notes(_ reading: GainMapReading, written: Bool, settings: ConversionSettings) -> [String] {
        guard !written, settings.hdr == .keep else { return [] }
        guard let origin = reading.origin else {
            return reading.problem.map { ["removed the claims of an HDR gain map: \($0)"] } ?? []
        }
        if !writes(settings) {
            let keepers = Formats.writers.filter(\.traits.carriesGainMap).map(\.displayName).joined(separator: " and ")
            return ["dropped the HDR gain map (\(origin.rawValue)): \(settings.format.rawValue.uppercased()) output cannot carry one here; wrote the SDR picture only (\(keepers) keeps it as Ultra HDR)"]
        }
        if let problem = reading.problem {
            return ["left out the HDR gain map (\(origin.rawValue)): \(problem); wrote the SDR picture only"]
        }
        if let headroom = reading.headroom, headroom <= 1 {
            return ["left out the HDR gain map (\(origin.rawValue)): its headroom is \(GainMapXMP.decimal(headroom)), so it brightens nothing"]
        }
        return reading.headroom == nil && reading.warnings.isEmpty
            ? ["left out the HDR gain map (\(origin.rawValue)): the file does not say how bright it gets"] : []
    }

    /// The warning for metadata that claims a gain map the decoder found nothing of (a PNG, WebP or GIF
    /// whose XMP says Ultra HDR, say); readers that found something say so in `notes`.
    static func unbackedClaimNote(_ reading: GainMapReading, metadata: ImageMetadata, settings: ConversionSettings) -> [String] {
        guard settings.hdr == .keep, reading.origin == nil, reading.problem == nil,
              [metadata.xmp, metadata.extendedXMP?.packet].contains(where: { $0.map(GainMapClaims.inPacket) == true }) else { return [] }
        return [RoutineNotice.unbackedGainMapClaims]
    }

    /// The source's claims taken out of its metadata, whatever becomes of the map: a kept map gets claims of
    /// its own from the writer's gain-map encoder. The warnings go with the decoded image's.
    static func removeSourceClaims(_ decoded: inout DecodedImage, settings: ConversionSettings) {
        decoded.warnings += unbackedClaimNote(decoded.gainMap, metadata: decoded.metadata, settings: settings)
        withoutClaims(&decoded.metadata, warnings: &decoded.warnings)
        if decoded.gainMap.origin != nil {
            decoded.metadata.uncarriedSegments = withoutContainerSegments(decoded.metadata.uncarriedSegments)
        }
    }

    /// The metadata without anything that says there is a gain map: the claims taken out of the XMP
    /// packet, which goes whole (with a warning) when it cannot be parsed to take them out; an extended
    /// XMP packet that claims one goes whole too (its GUID is the MD5 of its bytes).
    static func withoutClaims(_ metadata: inout ImageMetadata, warnings: inout [String]) {
        if let packet = metadata.xmp, GainMapClaims.inPacket(packet) {
            if let cleaned = try? GainMapXMP.removingClaims(packet), !GainMapClaims.inPacket(cleaned) {
                metadata.xmp = cleaned
            } else {
                metadata.xmp = nil
                warnings.append("dropped the XMP packet: it claims an HDR gain map in a way that cannot be taken out alone (not well-formed, or the namespace named in text)")
            }
        }
        if let extended = metadata.extendedXMP, GainMapClaims.inPacket(extended.packet) {
            metadata.extendedXMP = nil
            warnings.append("dropped the extended XMP: it claims an HDR gain map")
        }
    }

    /// The source's segment names less the gain-map container's own (MPF index, ISO 21496-1 block): those are
    /// rebuilt around a kept map, or go with a dropped one under a warning of its own.
    static func withoutContainerSegments(_ names: [String]) -> [String] {
        names.filter { !$0.hasPrefix("APP2 \"MPF") && !$0.hasPrefix("APP2 \"urn:iso:std:iso:ts:21496") }
    }
}
