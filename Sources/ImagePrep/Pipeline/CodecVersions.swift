import CImageCodecs

/// The versions that decide output bytes: imgprep's own, its codec libraries' (as loaded), and which
/// build of the resize loops runs. Part of every output cache key, so an upgrade or a different CPU
/// never serves outputs this build would not make.
public enum CodecVersions {
    public static let imgprep = "0.2.0"

    /// Everything that goes into a cache key, in a fixed order.
    public static var all: [String] {
        ["imgprep \(imgprep)"] + LibraryVersions.loaded.filter { $0.name != "libexif" }.map { "\($0.name) \($0.version)" }
            + DecoderVersions.all + ["resize \(cic_resize_uses_avx2() != 0 ? "avx2+fma" : "baseline")"]
    }
}
