import CExif
import CImageCodecs
internal import CLCMS
import Foundation

/// The versions of the libraries this process runs on (not the ones it was built against), for
/// `imgprep --version` and bug reports: every format's libraries, then the colour and EXIF libraries.
/// Each format declares its own libraries in its folder; the ones several share are declared here.
public enum LibraryVersions {
    public static var loaded: [(name: String, version: String)] {
        let formats = Formats.readers.flatMap(\.libraries) + Formats.writers.flatMap(\.libraries)
        return CodecLibrary.unique(formats + [.lcms2, .libexif]).map { ($0.name, $0.version()) }
    }
}

extension CodecLibrary {
    /// libexif has no version call and carries no version text: name the library file that was loaded.
    static let libexif = CodecLibrary("libexif") {
        let exifSymbol = unsafeBitCast(exif_data_new as @convention(c) () -> UnsafeMutablePointer<ExifData>?, to: UnsafeRawPointer.self)
        return text { cic_library_file(exifSymbol, $0, $1) }.map { "\(($0 as NSString).lastPathComponent) (libexif has no version call)" }
            ?? "unknown"
    }
    /// Shared: libpng deflates with it, and other libraries may.
    static let zlib = CodecLibrary("zlib") { loadedVersion("zlibVersion") }
    /// LittleCMS packs its version as MAJOR * 1000 + MINOR * 10.
    static let lcms2 = CodecLibrary("lcms2") {
        let code = Int(cmsGetEncodedCMMversion())
        return "\(code / 1000).\(code % 1000 / 10)"
    }
    /// A library's version text written into a buffer by one of our C calls.
    static func text(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { pointer -> String? in
            guard let base = pointer.baseAddress, call(base, pointer.count) == 0 else { return nil }
            return String(cString: base)
        }
    }

    /// What a `const char *version(void)` call found among the libraries this process has loaded returns.
    static func loadedVersion(_ symbol: String) -> String {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) else { return "not loaded" }  // RTLD_DEFAULT
        typealias VersionCall = @convention(c) () -> UnsafePointer<CChar>?
        return unsafeBitCast(address, to: VersionCall.self)().map { String(cString: $0) } ?? "not loaded"
    }
}
