import CImageCodecs

/// The versions that decide output bytes: imgprep's own, its codec libraries' (as loaded: every format
/// reader's and writer's, and LittleCMS for `--color srgb`), and which build of the resize loops runs.
/// Part of every output cache key, so an upgrade or a different CPU never serves outputs this build
/// would not make.
public enum CodecVersions {
    public static let imgprep = "0.2.0"

    /// Everything that goes into a cache key, in a fixed order.
    public static var all: [String] {
        let formats = Formats.readers.flatMap(\.libraries) + Formats.writers.flatMap(\.libraries)
        return ["imgprep \(imgprep)"] + CodecLibrary.unique(formats + [.lcms2]).map { "\($0.name) \($0.version())" }
            + ["resize \(cic_resize_uses_avx2() != 0 ? "avx2+fma" : "baseline")"]
    }
}
