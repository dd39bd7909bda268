/// Whether an output carries the source's gain map, and what the user is told when it does not.
enum GainMapPlan {
    /// Only JPEG can carry a gain map with Debian 12's libraries (libheif 1.15 and libavif 0.11 write
    /// no `tmap` item; PNG and WebP have no gain-map format): see each writer's `carriesGainMap`.
    static func writes(_ settings: ConversionSettings) -> Bool {
        settings.hdr == .keep && settings.format.writer.carriesGainMap
    }

    /// Warnings for a gain map that the output leaves out.
    static func notes(_ reading: GainMapReading, written: Bool, settings: ConversionSettings) -> [String] {
        guard let origin = reading.origin, !written, settings.hdr == .keep else { return [] }
        if !writes(settings) {
            let keepers = Formats.writers.filter(\.carriesGainMap).map(\.displayName).joined(separator: " and ")
            return ["dropped the HDR gain map (\(origin.rawValue)): \(settings.format.rawValue.uppercased()) output cannot carry one here; wrote the SDR picture only (\(keepers) keeps it as Ultra HDR)"]
        }
        if let headroom = reading.headroom, headroom <= 1 {
            return ["left out the HDR gain map (\(origin.rawValue)): its headroom is \(GainMapXMP.decimal(headroom)), so it brightens nothing"]
        }
        return reading.headroom == nil && reading.warnings.isEmpty
            ? ["left out the HDR gain map (\(origin.rawValue)): the file does not say how bright it gets"] : []
    }

    /// An XMP packet that no longer says there is a gain map (kept as it was if it cannot be read).
    static func withoutClaims(_ packet: [UInt8]) -> [UInt8] {
        guard GainMapXMP.claimsGainMap(packet) || XMPValues.mentions(AppleGainMap.xmpNamespace, in: packet) else { return packet }
        return (try? GainMapXMP.removingClaims(packet)) ?? packet
    }

    /// The source's segment names less the gain-map container's own (MPF index, ISO 21496-1 block): those are
    /// rebuilt around a kept map, or go with a dropped one under a warning of its own.
    static func withoutContainerSegments(_ names: [String]) -> [String] {
        names.filter { !$0.hasPrefix("APP2 \"MPF") && !$0.hasPrefix("APP2 \"urn:iso:std:iso:ts:21496") }
    }
}
