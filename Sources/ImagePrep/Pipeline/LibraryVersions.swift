import CExif
import CHeif
import CImageCodecs
internal import CLCMS
internal import CWebP
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
        // libwebp packs its version as 0xMMmmpp, LittleCMS as MAJOR * 1000 + MINOR * 10.
        let webpCode = Int(WebPGetEncoderVersion())
        let webp = "\(webpCode >> 16).\((webpCode >> 8) & 0xFF).\(webpCode & 0xFF)"
        let lcmsCode = Int(cmsGetEncodedCMMversion())
        let lcms = "\(lcmsCode / 1000).\(lcmsCode % 1000 / 10)"
        return [("libheif", heif), ("libjpeg-turbo", jpeg), ("libpng", png), ("libexif", exif), ("libwebp", webp),
                ("lcms2", lcms), ("AV1 encoder", encoderName(heif_compression_AV1)), ("HEVC encoder", encoderName(heif_compression_HEVC))]
    }

    /// The name libheif gives its encoder plugin for `format`, which carries the encoder's version
    /// (libaom's, x265's): AVIF and HEIC bytes depend on it, not only on libheif's.
    private static func encoderName(_ format: heif_compression_format) -> String {
        var descriptor: OpaquePointer?
        guard heif_context_get_encoder_descriptors(nil, format, nil, &descriptor, 1) == 1, let descriptor,
              let name = heif_encoder_descriptor_get_name(descriptor) else { return "none" }
        return String(cString: name)
    }
}
