import CExif

/// Human-readable values of the EXIF tags `imgprep info` shows, read with libexif. Only reads:
/// libexif's re-save changes data, which is why conversion patches the original bytes instead.
public enum ExifSummary {
    /// (IFD index in libexif's ExifData: 0 = IFD0, 2 = Exif, 3 = GPS; tag; label)
    private static let wanted: [(ifd: Int, tag: UInt32, label: String)] = [
        (0, 0x010F, "Make"), (0, 0x0110, "Model"), (0, 0x0112, "Orientation"),
        (2, 0x9003, "DateTimeOriginal"), (2, 0x9011, "OffsetTimeOriginal"), (2, 0xA434, "LensModel"),
        (2, 0x829A, "ExposureTime"), (2, 0x829D, "FNumber"), (2, 0x8827, "ISO"),
        (3, 0x0001, "GPSLatitudeRef"), (3, 0x0002, "GPSLatitude"), (3, 0x0003, "GPSLongitudeRef"),
        (3, 0x0004, "GPSLongitude"), (3, 0x0006, "GPSAltitude"),
    ]

    /// (label, value) pairs for the tags present in `tiff`, in a fixed order.
    public static func fields(of tiff: [UInt8]) -> [(String, String)] { read(tiff).fields }

    /// The tags' (label, value) pairs and the GPS position in decimal degrees, when it is whole and in range.
    static func read(_ tiff: [UInt8]) -> (fields: [(String, String)], position: GPSPosition?) {
        let block: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        guard block.count <= UInt32.max,   // libexif takes a 32-bit length
              let data = block.withUnsafeBufferPointer({ exif_data_new_from_data($0.baseAddress, UInt32($0.count)) })
        else { return ([], nil) }
        defer { exif_data_unref(data) }
        let ifds = withUnsafeBytes(of: data.pointee.ifd) { Array($0.bindMemory(to: UnsafeMutablePointer<ExifContent>?.self)) }
        var result: [(String, String)] = []
        var buffer = [CChar](repeating: 0, count: 256)
        for (ifd, tag, label) in wanted {
            guard ifd < ifds.count, let content = ifds[ifd], let entry = exif_content_get_entry(content, ExifTag(rawValue: tag)) else { continue }
            let value = buffer.withUnsafeMutableBufferPointer { pointer -> String in
                guard let text = exif_entry_get_value(entry, pointer.baseAddress, UInt32(pointer.count)) else { return "" }
                return String(cString: text)
            }
            if !value.isEmpty { result.append((label, value)) }
        }
        let position = ifds.count > 3 ? ifds[3].flatMap { GPSPosition.read(data, gps: $0) } : nil
        return (result, position)
    }
}
