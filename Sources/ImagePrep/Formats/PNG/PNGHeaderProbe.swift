extension HeaderProbe {
    /// IHDR must come first: signature (8), length (4), "IHDR" (4), width (4), height (4), bit depth (1),
    /// colour type (1: 4 and 6 carry alpha).
    static func png(_ file: [UInt8]) -> ImageHeader? {
        var cursor = ByteCursor(file, 12..<26)
        guard cursor.fourCC() == "IHDR", let width = cursor.u32(), let height = cursor.u32(),
              cursor.u8() != nil, let colourType = cursor.u8() else { return nil }
        return ImageHeader(width: Int(width), height: Int(height), hasAlpha: colourType == 4 || colourType == 6)
    }
}
