import CImageCodecs

extension CodecLibrary {
    static let libpng = CodecLibrary("libpng") { cic_png_version().map { String(cString: $0) } ?? "unknown" }
}
