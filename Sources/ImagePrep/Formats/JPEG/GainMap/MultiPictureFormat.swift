/// CIPA DC-007 Multi-Picture Format, as far as gain maps need it: finding the images after the first
/// in a JPEG, and writing the two-image index of an Ultra HDR file.
enum MultiPictureFormat {
    static let header: [UInt8] = Array("MPF".utf8) + [0]
    /// The payload `payload(primarySize:mapSize:mapOffset:)` writes: header, TIFF header, IFD, entries.
    static let payloadSize = 86

    /// Byte ranges (in the file) of the images after the first that an APP2 MPF segment of `file`
    /// lists and that lie inside the file, in the order listed. The first segment whose index can be
    /// read counts (as in libultrahdr: a damaged `MPF\0` segment before the real one is passed over).
    static func secondaryImages(in file: [UInt8]) -> [Range<Int>] {
        for segment in JPEGSegmentWalk.segments(in: file)
        where segment.marker == JPEGSegment.app2 && file[segment.payload].starts(with: header) {
            if let images = secondaryImages(in: file, index: segment) { return images }
        }
        return []
    }

    private static func secondaryImages(in file: [UInt8], index segment: JPEGSegmentWalk.Segment) -> [Range<Int>]? {
        let base = segment.payload.lowerBound + header.count   // offsets count from the TIFF header
        guard let tiff = try? TIFFBlock(Array(file[base..<segment.payload.upperBound])),
              let ifd = try? tiff.directory(at: tiff.ifd0Offset, "MP Index IFD"),
              let countEntry = ifd.entry(0xB001), let count = (try? tiff.integers(countEntry))?.first,
              let listEntry = ifd.entry(0xB002), count >= 2, count <= 64, listEntry.count == 16 * count,
              let list = try? tiff.valueRange(listEntry) else { return nil }
        var images: [Range<Int>] = []
        for index in 1..<count {
            let entry = list.lowerBound + 16 * index
            guard let size = try? tiff.u32(at: entry + 4), let offset = try? tiff.u32(at: entry + 8), offset > 0 else { continue }
            let (start, overflow) = base.addingReportingOverflow(offset)
            guard !overflow, size > 0, start < file.count, size <= file.count - start else { continue }
            images.append(start..<(start + size))
        }
        return images
    }

    /// The MPF payload for a primary image of `primarySize` bytes (this segment included) followed by a
    /// gain map of `mapSize` bytes that starts `mapOffset` bytes after this payload's TIFF header.
    static func payload(primarySize: Int, mapSize: Int, mapOffset: Int) -> [UInt8] {
        var bytes = header + [0x4D, 0x4D, 0x00, 0x2A] + u32(8)
        bytes += u16(3)
        bytes += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)
        bytes += u16(0xB001) + u16(4) + u32(1) + u32(2)
        bytes += u16(0xB002) + u16(7) + u32(32) + u32(50)
        bytes += u32(0)   // no next IFD
        bytes += u32(0x0003_0000) + u32(UInt32(primarySize)) + u32(0) + u16(0) + u16(0)   // baseline primary
        bytes += u32(0) + u32(UInt32(mapSize)) + u32(UInt32(mapOffset)) + u16(0) + u16(0)
        assert(bytes.count == payloadSize, "MPF payload layout")
        return bytes
    }

    private static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// Where each marker segment of a JPEG header lies, SOI to the first SOS. Bounds-checked; stops at
/// anything it cannot follow.
enum JPEGSegmentWalk {
    struct Segment {
        var marker: UInt8
        /// From the marker's 0xFF to the end of the payload.
        var whole: Range<Int>
        var payload: Range<Int>
    }

    static func segments(in file: [UInt8]) -> [Segment] {
        guard file.count >= 4, file[0] == 0xFF, file[1] == 0xD8 else { return [] }
        var segments: [Segment] = []
        var i = 2
        while i + 4 <= file.count, file[i] == 0xFF {
            let marker = file[i + 1]
            if marker == 0xDA || marker == 0xD9 || marker == 0xFF { break }
            let length = Int(file[i + 2]) << 8 | Int(file[i + 3])
            guard length >= 2, i + 2 + length <= file.count else { break }
            segments.append(Segment(marker: marker, whole: i..<(i + 2 + length), payload: (i + 4)..<(i + 2 + length)))
            i += 2 + length
        }
        return segments
    }
}
