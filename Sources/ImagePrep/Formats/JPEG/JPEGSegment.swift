/// A marker segment written verbatim after SOI (and JFIF APP0).
public struct JPEGSegment: Sendable, Equatable {
    public var marker: UInt8   // e.g. 0xE1 for APP1
    /// At most `maxPayload` bytes; the length field is added by the encoder.
    public var payload: [UInt8]

    public init(marker: UInt8, payload: [UInt8]) {
        self.marker = marker
        self.payload = payload
    }

    public static let app1: UInt8 = 0xE1
    public static let app2: UInt8 = 0xE2
    public static let app13: UInt8 = 0xED
    public static let comment: UInt8 = 0xFE
    /// A segment's length field (2 bytes) counts itself: 65535 - 2.
    public static let maxPayload = 65533

    static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let iccHeader: [UInt8] = Array("ICC_PROFILE".utf8) + [0]   // then sequence number, count
    static let photoshopHeader: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
    static let maxPhotoshopChunk = maxPayload - photoshopHeader.count
    static let maxICCChunk = maxPayload - iccHeader.count - 2   // 65519

    /// The largest EXIF (TIFF bytes), XMP packet and ICC profile that fit in JPEG segments.
    public static let maxEXIFSize = maxPayload - exifHeader.count   // 65527
    public static let maxXMPSize = maxPayload - xmpHeader.count - 2  // 65502, as Adobe's XMP spec says
    public static let maxICCSize = 255 * maxICCChunk                 // the count is one byte

    /// The segments that carry `metadata`, in the usual order: APP1 EXIF, APP1 XMP (then extended XMP), APP2 ICC
    /// chunks, APP13 Photoshop resources (split over several segments when large, as Photoshop does),
    /// COM. A block larger than `maxEXIFSize`, `maxXMPSize` or `maxICCSize`, or a comment over
    /// `maxPayload`, is left out: the caller compares sizes against those limits and decides what to
    /// tell the user.
    public static func segments(for metadata: ImageMetadata) -> [JPEGSegment] {
        var segments: [JPEGSegment] = []
        if let exif = metadata.exif, !exif.isEmpty, exif.count <= maxEXIFSize {
            segments.append(JPEGSegment(marker: app1, payload: exifHeader + exif))
        }
        if let xmp = metadata.xmp, !xmp.isEmpty, xmp.count <= maxXMPSize {
            segments.append(JPEGSegment(marker: app1, payload: xmpHeader + xmp))
            segments += metadata.extendedXMP?.segments ?? []   // only with the main packet that names it
        }
        if let icc = metadata.icc, !icc.isEmpty, icc.count <= maxICCSize {
            segments += iccSegments(icc)
        }
        if let iptc = metadata.iptc, !iptc.isEmpty {
            segments += stride(from: 0, to: iptc.count, by: maxPhotoshopChunk).map { start in
                JPEGSegment(marker: app13, payload: photoshopHeader + iptc[start..<min(start + maxPhotoshopChunk, iptc.count)])
            }
        }
        for text in metadata.comments where text.count <= maxPayload {
            segments.append(JPEGSegment(marker: comment, payload: text))
        }
        return segments
    }

    /// ICC.1 Annex B: the profile split into chunks numbered 1...count.
    static func iccSegments(_ profile: [UInt8]) -> [JPEGSegment] {
        let starts = Array(stride(from: 0, to: profile.count, by: maxICCChunk))
        return starts.enumerated().map { index, start in
            let chunk = profile[start..<min(start + maxICCChunk, profile.count)]
            return JPEGSegment(marker: app2, payload: iccHeader + [UInt8(index + 1), UInt8(starts.count)] + chunk)
        }
    }
}
