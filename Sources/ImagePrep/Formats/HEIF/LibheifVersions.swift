import CHeif

/// libheif and the libraries it brings in, as loaded: HEIC and AVIF pixels come from libheif's decoder
/// plugins (libde265, dav1d, libaom), whose versions libheif's own does not tell, and AVIF and HEIC
/// bytes from its encoder plugins.
extension CodecLibrary {
    static let libheif = CodecLibrary("libheif") {
        LibHeif.versionAfterLoading { heif_get_version().map { String(cString: $0) } ?? "unknown" }
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

    /// The names libheif gives its decoder plugins, which carry their versions ("decoder libde265 HEVC
    /// decoder, version 1.0.11").
    static let heifDecoderPlugins = CodecLibrary("libheif decoder plugins") {
        LibHeif.versionAfterLoading { plugins().joined(separator: "; ") }
    }
    // Loaded with libheif, which is opened at first use.
    static let libde265 = CodecLibrary("libde265") { LibHeif.versionAfterLoading { loadedVersion("de265_get_version") } }
    static let dav1d = CodecLibrary("dav1d") { LibHeif.versionAfterLoading { loadedVersion("dav1d_version") } }
    static let libaom = CodecLibrary("libaom") { LibHeif.versionAfterLoading { loadedVersion("aom_codec_version_str") } }

    private static func plugins() -> [String] {
        var descriptors = [OpaquePointer?](repeating: nil, count: 32)
        let count = descriptors.withUnsafeMutableBufferPointer { buffer in
            heif_get_decoder_descriptors(heif_compression_undefined, buffer.baseAddress, Int32(buffer.count))
        }
        return descriptors.prefix(max(0, min(Int(count), descriptors.count))).map { descriptor in
            descriptor.flatMap { heif_decoder_descriptor_get_name($0) }.map { "decoder " + String(cString: $0) } ?? "decoder unnamed"
        }
    }
}
