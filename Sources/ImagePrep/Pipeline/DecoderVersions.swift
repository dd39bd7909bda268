import CHeif
import Foundation

/// The libraries behind the decoders and the PNG compressor, as loaded: HEIC and AVIF pixels come from
/// libheif's decoder plugins (libde265, dav1d, libaom), whose versions libheif's own does not tell, and
/// PNG bytes from zlib. Part of the cache key with `LibraryVersions`.
enum DecoderVersions {
    static var all: [String] {
        plugins() + [("libde265", "de265_get_version"), ("dav1d", "dav1d_version"), ("libaom", "aom_codec_version_str"),
                     ("zlib", "zlibVersion")].map { name, call in "\(name) \(loadedVersion(call) ?? "not loaded")" }
    }

    /// The names libheif gives its decoder plugins, which carry their versions ("libde265 HEVC decoder,
    /// version 1.0.11").
    private static func plugins() -> [String] {
        var descriptors = [OpaquePointer?](repeating: nil, count: 32)
        let count = descriptors.withUnsafeMutableBufferPointer { buffer in
            heif_get_decoder_descriptors(heif_compression_undefined, buffer.baseAddress, Int32(buffer.count))
        }
        return descriptors.prefix(max(0, min(Int(count), descriptors.count))).map { descriptor in
            descriptor.flatMap { heif_decoder_descriptor_get_name($0) }.map { "decoder " + String(cString: $0) } ?? "decoder unnamed"
        }
    }

    /// A library's `const char *version(void)` call, found among the libraries this process has loaded.
    private static func loadedVersion(_ symbol: String) -> String? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) else { return nil }  // RTLD_DEFAULT
        typealias VersionCall = @convention(c) () -> UnsafePointer<CChar>?
        return unsafeBitCast(address, to: VersionCall.self)().map { String(cString: $0) }
    }
}
