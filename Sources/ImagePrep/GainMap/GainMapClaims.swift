/// What in a file says there is an HDR gain map, found in the bytes rather than by parsing them, so a
/// packet too broken to parse still counts: a file that leaves imgprep claims a map only when imgprep
/// read that map and its values and found them valid, and everything else that claims one goes.
enum GainMapClaims {
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

    /// Whether the JPEG's own header (not the images an MPF index lists) claims a gain map: in its XMP or
    /// extended XMP, or with an ISO 21496-1 block. (An MPF index alone is not a claim: cameras list
    /// previews in it.)
    static func inJPEGHeader(_ file: [UInt8]) -> Bool {
        JPEGSegmentWalk.segments(in: file).contains { segment in
            let payload = file[segment.payload]
            switch segment.marker {
            case JPEGSegment.app1:
                return (payload.starts(with: JPEGSegment.xmpHeader) || payload.starts(with: ExtendedXMP.header))
                    && namespaces.contains { containsBytes(payload, $0) }
            case JPEGSegment.app2:
                return payload.starts(with: ISOGainMapBlock.header)
            default:
                return false
            }
        }
    }
}
