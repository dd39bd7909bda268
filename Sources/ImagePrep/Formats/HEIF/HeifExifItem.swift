extension Exif {
    /// The TIFF block inside a HEIF "Exif" item (4-byte big-endian offset, maybe "Exif\0\0"), or nil.
    public static func tiff(fromHeifExifItem item: [UInt8]) -> [UInt8]? {
        let exifPrefix: [UInt8] = Array("Exif\0\0".utf8)
        func block(at start: Int) -> [UInt8]? {
            guard start >= 0, start < item.count else { return nil }
            if TIFFBlock.startsWithHeader(item[start...]) { return Array(item[start...]) }
            if item[start...].starts(with: exifPrefix), TIFFBlock.startsWithHeader(item[(start + 6)...]) {
                return Array(item[(start + 6)...])
            }
            return nil
        }
        if item.count >= 4 {
            let offset = item[0..<4].reduce(0) { $0 << 8 | Int($1) }
            if let found = block(at: 4 + offset) { return found }
        }
        // Some writers get the offset wrong or leave it out: take the first header near the start.
        return (0..<min(64, item.count)).lazy.compactMap { block(at: $0) }.first
    }
}
