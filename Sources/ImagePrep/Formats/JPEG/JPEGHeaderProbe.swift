extension HeaderProbe {
    /// The first start-of-frame segment: precision (1), height (2), width (2).
    static func jpeg(_ file: [UInt8]) -> ImageHeader? {
        var found: ImageHeader?
        _ = JPEGMarkers.forEachSegment(in: file) { marker, payload in
            // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            guard found == nil, (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) else { return }
            var cursor = ByteCursor(payload, 0..<payload.count)
            guard cursor.u8() != nil, let height = cursor.u16(), let width = cursor.u16() else { return }
            found = ImageHeader(width: Int(width), height: Int(height))
        }
        return found
    }
}
