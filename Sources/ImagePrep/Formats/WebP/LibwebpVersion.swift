internal import CWebP

extension CodecLibrary {
    /// libwebp packs its version as 0xMMmmpp.
    static let libwebp = CodecLibrary("libwebp") {
        let code = Int(WebPGetEncoderVersion())
        return "\(code >> 16).\((code >> 8) & 0xFF).\(code & 0xFF)"
    }
}
