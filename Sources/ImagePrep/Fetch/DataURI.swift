/// `data:[media type][;base64],payload` (RFC 2397): the payload percent-decoded, then base64-decoded
/// when marked so (whitespace ignored, padding optional). The media type is ignored: the content is sniffed.
struct DataURI: Sendable, Equatable {
    /// `data-` and the first 16 hex digits of the decoded bytes' SHA-256.
    let outputName: String

    static func parse(_ uri: String) -> Result<DataURI, ImagePrepError> {
        decode(uri, maxBytes: Int.max).map { DataURI(outputName: "data-" + SHA256.hex(SHA256.hash($0)).prefix(16)) }
    }

    /// The decoded payload, refused past `maxBytes`.
    static func decode(_ uri: String, maxBytes: Int) -> Result<[UInt8], ImagePrepError> {
        let bytes = Array(uri.utf8.dropFirst("data:".utf8.count))
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else {
            return .failure(ImagePrepError(.io, "a data: URI needs a comma before its payload"))
        }
        let header = String(decoding: bytes[..<comma], as: UTF8.self).lowercased()
        let isBase64 = header.split(separator: ";").last == "base64"
        let payload = bytes[(comma + 1)...]
        // Decoding makes fewer bytes than it reads, and the URI is in memory already: the limit is
        // checked on the result.
        guard let decoded = PercentEncoding.decode(payload) else {
            return .failure(ImagePrepError(.corrupt, "the data: URI's payload has a % not followed by two hex digits"))
        }
        let result: [UInt8]
        if isBase64 {
            guard let data = base64(decoded) else {
                return .failure(ImagePrepError(.corrupt, "the data: URI's base64 payload is damaged"))
            }
            result = data
        } else {
            result = decoded
        }
        guard result.count <= maxBytes else { return .failure(tooLarge(maxBytes)) }
        return .success(result)
    }

    /// What lines show: the start of the URI, never its whole payload.
    static func shown(_ uri: String) -> String {
        let limit = 48
        guard uri.unicodeScalars.count > limit else { return uri }
        return String(String.UnicodeScalarView(uri.unicodeScalars.prefix(limit))) + "…"
    }

    private static func tooLarge(_ maxBytes: Int) -> ImagePrepError {
        ImagePrepError(.tooLarge, "the data: URI holds more than the --max-input-size limit of \(ByteSize.format(maxBytes))")
    }

    private static func base64(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3 + 3)
        var buffer: UInt32 = 0, bits = 0, padding = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case 0x41...0x5A: value = UInt32(byte - 0x41)
            case 0x61...0x7A: value = UInt32(byte - 0x61 + 26)
            case 0x30...0x39: value = UInt32(byte - 0x30 + 52)
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            guard padding == 0 else { return nil }  // data after the padding
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // 6 leftover bits cannot come from whole bytes; more than two = is not base64.
        guard bits != 6, padding <= 2 else { return nil }
        return out
    }
}
