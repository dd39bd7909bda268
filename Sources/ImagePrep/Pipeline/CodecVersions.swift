import CHeif
import CImageCodecs

/// The versions that decide output bytes: imgprep's own and its codec libraries'. Part of every
/// output cache key, so an upgrade never serves outputs an older build made.
public enum CodecVersions {
    public static let imgprep = "0.2.0"

    public static var libheif: String { String(cString: heif_get_version()) }
    public static var libjpegTurbo: String { String(cString: cic_jpeg_version()) }
    public static var libpng: String {
        let number = Int(cic_png_version())   // 10639 → 1.6.39
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }

    /// Everything that goes into a cache key, in a fixed order.
    public static var all: [String] {
        ["imgprep \(imgprep)", "libheif \(libheif)", "libjpeg-turbo \(libjpegTurbo)", "libpng \(libpng)",
         "resize \(cic_resize_uses_avx2() != 0 ? "avx2+fma" : "baseline")"]
    }
}
