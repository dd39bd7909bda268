import CExif
import Foundation

/// Where EXIF says the picture was taken, in signed decimal degrees (south and west negative).
public struct GPSPosition: Sendable, Codable, Equatable {
    public var latitude: Double
    public var longitude: Double

    /// "37.774900° N, 122.419400° W", as maps and people read it.
    public var text: String {
        String(format: "%.6f° %@, %.6f° %@", abs(latitude), latitude < 0 ? "S" : "N", abs(longitude), longitude < 0 ? "W" : "E")
    }

    /// The GPS IFD's latitude and longitude, or nil when either is missing or out of range (every number in
    /// it is the file's: denominators may be zero, minutes past 60, degrees past the poles).
    static func read(_ data: UnsafeMutablePointer<ExifData>, gps: UnsafeMutablePointer<ExifContent>) -> GPSPosition? {
        let order = exif_data_get_byte_order(data)
        func degrees(_ tag: UInt32, ref refTag: UInt32, limit: Double, negative: UInt8) -> Double? {
            guard let entry = exif_content_get_entry(gps, ExifTag(rawValue: tag)),
                  entry.pointee.format == EXIF_FORMAT_RATIONAL, entry.pointee.components == 3,
                  let bytes = entry.pointee.data, entry.pointee.size >= 24 else { return nil }
            var parts: [Double] = []
            for index in 0..<3 {
                let rational = exif_get_rational(bytes + index * 8, order)
                guard rational.denominator != 0 else { return nil }
                parts.append(Double(rational.numerator) / Double(rational.denominator))
            }
            guard parts[1] < 60, parts[2] < 60 else { return nil }
            let value = parts[0] + parts[1] / 60 + parts[2] / 3600
            guard value.isFinite, value <= limit else { return nil }
            guard let ref = exif_content_get_entry(gps, ExifTag(rawValue: refTag)), ref.pointee.size >= 1,
                  let refBytes = ref.pointee.data else { return value }   // no hemisphere: north and east, as exiftool reads it
            return refBytes.pointee == negative ? -value : value
        }
        guard let latitude = degrees(0x0002, ref: 0x0001, limit: 90, negative: UInt8(ascii: "S")),
              let longitude = degrees(0x0004, ref: 0x0003, limit: 180, negative: UInt8(ascii: "W")) else { return nil }
        return GPSPosition(latitude: latitude, longitude: longitude)
    }
}
