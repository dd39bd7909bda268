import CImageCodecs

/// A JPEG made upright and re-tagged without decoding it: its DCT coefficients are moved (turns and
/// flips, with libjpeg-turbo's TurboJPEG, as `jpegtran -perfect` does) or kept, never requantized, so no
/// quality is lost.
enum JPEGLossless {
    /// `file` turned upright with `segments` as its metadata, or nil when the turn cannot be lossless: a
    /// side that would move to the top or left edge is not a whole number of MCUs (8 or 16 pixels), so its
    /// edge blocks could not move with the rest. Throws when libjpeg-turbo refuses the file.
    static func upright(_ file: [UInt8], orientation: ExifOrientation, progressive: Bool,
                        segments: [JPEGSegment]) throws -> [UInt8]? {
        precondition(orientation != .up, "nothing to turn")
        var notPerfect = false
        let bytes = try run(segments) { cSegments, output, outputSize, err, errlen in
            let status = file.withUnsafeBufferPointer {
                cic_jpeg_transform($0.baseAddress, $0.count, Int32(orientation.rawValue), progressive ? 1 : 0,
                                   cSegments, cSegments.count, &output, &outputSize, err, errlen)
            }
            notPerfect = status == CIC_NOT_PERFECT
            return notPerfect ? 0 : status
        }
        return notPerfect ? nil : bytes
    }

    /// `file` with the same coefficients, optimal Huffman tables (or progressive scans) and `segments` as its
    /// only metadata: every other marker segment, and anything after the picture, is left out.
    static func recoded(_ file: [UInt8], progressive: Bool, segments: [JPEGSegment]) throws -> [UInt8] {
        try run(segments) { cSegments, output, outputSize, err, errlen in
            file.withUnsafeBufferPointer {
                cic_jpeg_recode($0.baseAddress, $0.count, progressive ? 1 : 0, cSegments, cSegments.count,
                                &output, &outputSize, err, errlen)
            }
        }
    }

    /// Runs one C call with the segments laid out for it and takes ownership of its output.
    private static func run(
        _ segments: [JPEGSegment],
        _ call: ([cic_jpeg_segment], inout UnsafeMutablePointer<UInt8>?, inout Int, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        defer { cic_free(output) }
        try callCodec("libjpeg-turbo") { err, errlen in
            JPEGEncoder.withCSegments(segments) { call($0, &output, &outputSize, err, errlen) }
        }
        guard let output else { return [] }   // only when the call returned early (not perfect)
        return Array(UnsafeBufferPointer(start: output, count: outputSize))
    }

    /// `file` with its metadata segments (EXIF, XMP and extended XMP, ICC, Photoshop/IPTC, comments) replaced by `segments`,
    /// every other byte as it was: the other marker segments, the entropy-coded data and whatever follows
    /// it. `segments` go where the first replaced segment was (else after SOI and JFIF), so an MPF index
    /// after them still points at its images. nil when the header is not a clean run of segments, or when
    /// a replaced segment follows an MPF index (its offsets would move): the caller re-writes instead.
    static func replacingMetadata(in file: [UInt8], with segments: [JPEGSegment]) -> [UInt8]? {
        guard let header = HeaderSegments(file) else { return nil }
        let replaced = header.segments.map { isMetadata(marker: $0.marker, payload: file[$0.payload]) }
        if let mpf = header.segments.firstIndex(where: { $0.marker == JPEGSegment.app2 && file[$0.payload].starts(with: Array("MPF\0".utf8)) }),
           replaced[mpf...].contains(true) {
            return nil
        }
        let insertAt = replaced.firstIndex(of: true)
            ?? header.segments.firstIndex { !($0.marker == 0xE0 && file[$0.payload].starts(with: Array("JFIF\0".utf8))) }
            ?? header.segments.count
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(file.count + segments.reduce(0) { $0 + $1.payload.count + 4 })
        for (index, segment) in header.segments.enumerated() {
            if index == insertAt { out += segments.flatMap(\.bytes) }
            if !replaced[index] { out += file[segment.whole] }
        }
        if insertAt == header.segments.count { out += segments.flatMap(\.bytes) }
        return out + file[header.end...]
    }

    private static func isMetadata(marker: UInt8, payload: ArraySlice<UInt8>) -> Bool {
        switch marker {
        case JPEGSegment.app1: payload.starts(with: JPEGSegment.exifHeader) || payload.starts(with: JPEGSegment.xmpHeader)
            || payload.starts(with: ExtendedXMP.header)
        case JPEGSegment.app2: payload.starts(with: JPEGSegment.iccHeader)
        case JPEGSegment.app13: payload.starts(with: JPEGSegment.photoshopHeader)
        case JPEGSegment.comment: true
        default: false
        }
    }
}

extension JPEGSegment {
    /// Marker, length and payload as they appear in a file.
    var bytes: [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }
}

/// The marker segments between SOI and the first SOS, where each lies. Strict: fill bytes are allowed
/// between segments, anything else (stray bytes, a marker without a length, a segment running past the
/// end) fails, since a file that needs libjpeg's leniency should not be edited in place.
private struct HeaderSegments {
    struct Segment {
        var marker: UInt8
        /// From the 0xFF before the marker to the end of the payload.
        var whole: Range<Int>
        var payload: Range<Int>
    }

    var segments: [Segment] = []
    /// Where SOS starts: everything from here on is kept as it is.
    var end = 0

    init?(_ jpeg: [UInt8]) {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var i = 2
        while true {
            guard i < jpeg.count, jpeg[i] == 0xFF else { return nil }
            let start = i
            while i < jpeg.count, jpeg[i] == 0xFF { i += 1 }
            guard i + 2 < jpeg.count else { return nil }
            let marker = jpeg[i]
            if marker == 0xDA {
                end = start
                return
            }
            // Markers without a length (SOI, EOI, RSTn, TEM) or a stuffed zero do not belong here.
            guard marker != 0x00, marker != 0x01, !(0xD0...0xD9).contains(marker) else { return nil }
            let length = Int(jpeg[i + 1]) << 8 | Int(jpeg[i + 2])
            guard length >= 2, length <= jpeg.count - (i + 1) else { return nil }
            segments.append(Segment(marker: marker, whole: start..<(i + 1 + length), payload: (i + 3)..<(i + 1 + length)))
            i += 1 + length
        }
    }
}
