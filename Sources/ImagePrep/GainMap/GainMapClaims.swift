/// What in a file says there is an HDR gain map, found in the bytes rather than by parsing them, so a
/// packet too broken to parse still counts: a file that leaves imgprep claims a map only when imgprep
/// read that map and its values and found them valid, and everything else that claims one goes.
enum GainMapClaims {
    /// Each format's own search (a JPEG's header segments, say) is an extension in its folder.
    static let namespaces = [GainMapXMP.namespace, GainMapXMP.containerNamespace, GainMapXMP.itemNamespace,
                             AppleGainMap.xmpNamespace].map { Array($0.utf8) }

    /// Whether an XMP packet names Ultra HDR's `hdrgm` namespace (parsed or not).
    static func mentionsHDRGainMap(_ packet: [UInt8]) -> Bool {
        containsBytes(packet, namespaces[0])
    }

    /// Whether an XMP packet names any gain-map namespace: `hdrgm`, the GContainer directory, Apple's.
    static func inPacket(_ packet: [UInt8]) -> Bool {
        namespaces.contains { containsBytes(packet, $0) }
    }
}
