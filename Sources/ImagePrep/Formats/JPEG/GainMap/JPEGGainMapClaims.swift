extension GainMapClaims {
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
