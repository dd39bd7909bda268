import CHeif
import Foundation

/// The libraries behind the decoders and the PNG compressor, as loaded: HEIC and AVIF pixels come from
/// libheif's decoder plugins (libde265, dav1d, libaom), whose versions libheif's own does not tell, and
/// PNG bytes from zlib.
extension CodecLibrary {
    /// The names libheif gives its decoder plugins, which carry their versions ("decoder libde265 HEVC
    /// decoder, version 1.0.11").
    static let heifDecoderPlugins = CodecLibrary("libheif decoder plugins") {
        LibHeif.versionAfterLoading { plugins().joined(separator: "; ") }
    }
    // Loaded with libheif, which is opened at first use.
    static let libde265 = CodecLibrary("libde265") { LibHeif.versionAfterLoading { loadedVersion("de265_get_version") } }
    static let dav1d = CodecLibrary("dav1d") { LibHeif.versionAfterLoading { loadedVersion("dav1d_version") } }
    static let libaom = CodecLibrary("libaom") { LibHeif.versionAfterLoading { loadedVersion("aom_codec_version_str") } }
    static let zlib = CodecLibrary("zlib") { loadedVersion("zlibVersion") }

    private static func plugins() -> [String] {
        var descriptors = [OpaquePointer?](repeating: nil, count: 32)
        let count = descriptors.withUnsafeMutableBufferPointer { buffer in
            heif_get_decoder_descriptors(heif_compression_undefined, buffer.baseAddress, Int32(buffer.count))
        }
        return descriptors.prefix(max(0, min(Int(count), descriptors.count))).map { descriptor in
            descriptor.flatMap { heif_decoder_descriptor_get_name($0) }.map { "decoder " + String(cString: $0) } ?? "decoder unnamed"
        }
    }

    /// What a `const char *version(void)` call found among the libraries this process has loaded returns.
    private static func loadedVersion(_ symbol: String) -> String {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) else { return "not loaded" }  // RTLD_DEFAULT
        typealias VersionCall = @convention(c) () -> UnsafePointer<CChar>?
        return unsafeBitCast(address, to: VersionCall.self)().map { String(cString: $0) } ?? "not loaded"
    }
}
