import CImageCodecs

extension CodecLibrary {
    static let libjpegTurbo = CodecLibrary("libjpeg-turbo") {
        text { cic_jpeg_version($0, $1) } ?? "unknown (no version text in the loaded library)"
    }
}
