import CExif
import CHeif
import CImageCodecs
import Foundation

/// The versions of the libraries this process runs on (not the ones it was built against), for
/// `imgprep --version` and bug reports.
public enum LibraryVersions {
    public static var loaded: [(name: String, version: String)] {
        var buffer = [CChar](repeating: 0, count: 256)
        func text(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
            buffer.withUnsafeMutableBufferPointer { pointer -> String? in
                guard let base = pointer.baseAddress, call(base, pointer.count) == 0 else { return nil }
                return String(cString: base)
            }
        }
        let heif = heif_get_version().map { String(cString: $0) } ?? "unknown"
        let jpeg = text { cic_jpeg_version($0, $1) } ?? "unknown (no version text in the loaded library)"
        let png = cic_png_version().map { String(cString: $0) } ?? "unknown"
        // libexif has no version call and carries no version text: name the library file that was loaded.
        let exifSymbol = unsafeBitCast(exif_data_new as @convention(c) () -> UnsafeMutablePointer<ExifData>?, to: UnsafeRawPointer.self)
        let exif = text { cic_library_file(exifSymbol, $0, $1) }.map { "\(($0 as NSString).lastPathComponent) (libexif has no version call)" }
            ?? "unknown"
        return [("libheif", heif), ("libjpeg-turbo", jpeg), ("libpng", png), ("libexif", exif)]
    }
}
