internal import CGif
import CImageCodecs
import Foundation

extension CodecLibrary {
    /// giflib has no version call and Debian 12's carries no version text: the version of the headers
    /// this build was compiled against (GIFLIB_MAJOR.MINOR.RELEASE), and the library file loaded, whose
    /// name (libgif.so.7.2.0) changes when another giflib is installed.
    static let giflib = CodecLibrary("giflib") {
        let headers = "\(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)"
        let symbol = unsafeBitCast(GifErrorString as @convention(c) (Int32) -> UnsafePointer<CChar>?, to: UnsafeRawPointer.self)
        let file = text { cic_library_file(symbol, $0, $1) }.map { ($0 as NSString).lastPathComponent } ?? "file unknown"
        return "\(headers) (headers; \(file) loaded)"
    }
}
