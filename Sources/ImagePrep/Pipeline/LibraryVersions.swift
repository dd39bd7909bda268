import CExif
import CHeif
import CImageCodecs
internal import CLCMS
internal import CWebP
import Foundation

/// The versions of the libraries this process runs on (not the ones it was built against), for
/// `imgprep --version` and bug reports: every format's libraries, then the colour and EXIF libraries.
public enum LibraryVersions {
    public static var loaded: [(name: String, version: String)] {
        let formats = Formats.readers.flatMap(\.libraries) + Formats.writers.flatMap(\.libraries)
        return CodecLibrary.unique(formats + [.lcms2, .libexif]).map { ($0.name, $0.version()) }
    }
}

extension CodecLibrary {
    static let libheif = CodecLibrary("libheif") {
        LibHeif.versionAfterLoading { heif_get_version().map { String(cString: $0) } ?? "unknown" }
    }
    static let libjpegTurbo = CodecLibrary("libjpeg-turbo") {
        text { cic_jpeg_version($0, $1) } ?? "unknown (no version text in the loaded library)"
    }
    static let libpng = CodecLibrary("libpng") { cic_png_version().map { String(cString: $0) } ?? "unknown" }
    /// libexif has no version call and carries no version text: name the library file that was loaded.
    static let libexif = CodecLibrary("libexif") {
        let exifSymbol = unsafeBitCast(exif_data_new as @convention(c) () -> UnsafeMutablePointer<ExifData>?, to: UnsafeRawPointer.self)
        return text { cic_library_file(exifSymbol, $0, $1) }.map { "\(($0 as NSString).lastPathComponent) (libexif has no version call)" }
            ?? "unknown"
    }
    /// libwebp packs its version as 0xMMmmpp.
    static let libwebp = CodecLibrary("libwebp") {
        let code = Int(WebPGetEncoderVersion())
        return "\(code >> 16).\((code >> 8) & 0xFF).\(code & 0xFF)"
    }
    /// LittleCMS packs its version as MAJOR * 1000 + MINOR * 10.
    static let lcms2 = CodecLibrary("lcms2") {
        let code = Int(cmsGetEncodedCMMversion())
        return "\(code / 1000).\(code % 1000 / 10)"
    }
    /// The names libheif gives its encoder plugins carry the encoder's version (libaom's, x265's): AVIF
    /// and HEIC bytes depend on it, not only on libheif's.
    static let av1Encoder = CodecLibrary("AV1 encoder") { LibHeif.versionAfterLoading { encoderName(heif_compression_AV1) } }
    static let hevcEncoder = CodecLibrary("HEVC encoder") { LibHeif.versionAfterLoading { encoderName(heif_compression_HEVC) } }

    private static func encoderName(_ format: heif_compression_format) -> String {
        var descriptor: OpaquePointer?
        guard heif_context_get_encoder_descriptors(nil, format, nil, &descriptor, 1) == 1, let descriptor,
              let name = heif_encoder_descriptor_get_name(descriptor) else { return "none" }
        return String(cString: name)
    }

    /// A library's version text written into a buffer by one of our C calls.
    static func text(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { pointer -> String? in
            guard let base = pointer.baseAddress, call(base, pointer.count) == 0 else { return nil }
            return String(cString: base)
        }
    }
}
