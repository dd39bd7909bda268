/// The `<picture>` for one source's variants.
public enum PictureMarkup {
    /// One `<source type=…>` per format except the last listed (AVIF, then WebP, … in `variants`' order),
    /// each a `w`-descriptor `srcset` with `sizes`; an `<img>` of the last format: `src` its largest variant,
    /// its `srcset`, `sizes`, `width`/`height` of that largest variant, `loading="lazy"`, `decoding="async"`,
    /// `alt`. Every attribute HTML-escaped; URLs are `baseURL` + path, each path segment percent-encoded.
    /// For an animation, only the formats that kept it get a `<source>`: a browser takes the first type it
    /// can show, and a still AVIF would win over the animated WebP.
    public static func html(variants: [ManifestVariant], alt: String, sizes: String, baseURL: String?) -> String {
        var formats: [String] = []
        for variant in variants where !formats.contains(variant.format) { formats.append(variant.format) }
        guard let last = formats.last else { return "" }
        let animated = Set(variants.filter(\.animated).map(\.format))
        let sources = formats.dropLast().filter { animated.isEmpty || animated.contains($0) }
        func widthsAscending(_ format: String) -> [ManifestVariant] {
            variants.filter { $0.format == format }.sorted { $0.width < $1.width }  // stable: ties keep their order
        }
        func srcset(_ set: [ManifestVariant]) -> String {
            set.map { url($0.path, baseURL: baseURL) + " \($0.width)w" }.joined(separator: ", ")
        }
        var html = "<picture>"
        for format in sources {
            html += "<source" + attributes([("type", mediaType(format) ?? "image/\(format)"), ("srcset", srcset(widthsAscending(format))),
                                            ("sizes", sizes)]) + ">"
        }
        let fallback = widthsAscending(last)
        let largest = fallback[fallback.count - 1]  // the format is in `variants`, so it has one
        html += "<img" + attributes([("src", url(largest.path, baseURL: baseURL)), ("srcset", srcset(fallback)), ("sizes", sizes),
                                     ("width", String(largest.width)), ("height", String(largest.height)),
                                     ("loading", "lazy"), ("decoding", "async"), ("alt", alt)]) + ">"
        return html + "</picture>"
    }

    /// The media type a `<source type>` names for a format as `--to` spells it; nil for one imgprep does not write.
    public static func mediaType(_ format: String) -> String? {
        OutputFormat(rawValue: format)?.writer.descriptor.mediaType
    }

    /// `baseURL` and the path joined by exactly one `/` (none given: the path, relative to the page).
    /// Each segment of the path is percent-encoded, from the file name's bytes, but for RFC 3986's
    /// unreserved characters: a space or a comma would otherwise split a `srcset` candidate, and `#` or
    /// `?` would end the path. The base keeps its URL syntax, but whatever cannot stand in a URL or would
    /// split a candidate (spaces, commas, quotes, bytes past ASCII, a `%` that starts no escape) is encoded.
    public static func url(_ path: String, baseURL: String?) -> String {
        let encoded = path.split(separator: "/", omittingEmptySubsequences: false).map { percentEncoded(String($0)) }.joined(separator: "/")
        guard let baseURL, !baseURL.isEmpty else { return encoded }
        var base = Substring(encodedBase(baseURL))
        while base.hasSuffix("/") { base = base.dropLast() }
        var relative = Substring(encoded)
        while relative.hasPrefix("/") { relative = relative.dropFirst() }
        return String(base) + "/" + String(relative)
    }

    private static let hex = Array("0123456789ABCDEF")

    private static func encodedBase(_ base: String) -> String {
        let bytes = RawPath.bytes(base)
        func isHex(_ byte: UInt8) -> Bool { ManifestReader.isHexDigit(byte) }
        var out = ""
        for (index, byte) in bytes.enumerated() {
            let startsEscape = byte == UInt8(ascii: "%") && index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            if byte > 0x20, byte < 0x7F, !Array(#"",<>\^`{|}"#.utf8).contains(byte), byte != UInt8(ascii: "%") || startsEscape {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }

    private static func percentEncoded(_ segment: String) -> String {
        var out = ""
        for byte in RawPath.bytes(segment) {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(HTMLText.escaped($0.1))\"" }.joined()
    }
}

/// Text made safe inside a quoted HTML attribute (or between tags): a caption is attacker-controlled.
public enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as character references; everything else as is.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
