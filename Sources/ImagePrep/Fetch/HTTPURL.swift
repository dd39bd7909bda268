/// The parts of an http(s) URL imgprep needs itself; libcurl parses it again to fetch it (and refuses
/// what it cannot). Only the split into scheme, credentials, host and path is done here.
struct HTTPURL: Sendable, Equatable {
    /// The URL without `user:password@`: safe to print.
    let shown: String
    let hasCredentials: Bool
    /// The last path segment, percent-decoded and made safe; the host when the path ends in `/`.
    let outputName: String

    /// nil when the URL has no host, or holds spaces or control characters (libcurl would refuse it too).
    static func parse(_ url: String) -> HTTPURL? {
        let bytes = Array(url.utf8)
        guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
              let (scheme, authority, rest) = split(bytes) else { return nil }
        let at = authority.lastIndex(of: UInt8(ascii: "@"))
        let host = at.map { Array(authority[($0 + 1)...]) } ?? authority
        guard !host.isEmpty else { return nil }
        let path = rest.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        let segment = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last.map(Array.init) ?? []
        let hostName = host.split(separator: UInt8(ascii: ":")).first.map(Array.init) ?? host
        let name = SafeName.make(PercentEncoding.decode(segment) ?? segment) ?? SafeName.make(hostName) ?? "download"
        return HTTPURL(shown: String(decoding: scheme + Array("://".utf8) + host + rest, as: UTF8.self),
                       hasCredentials: at != nil, outputName: name)
    }

    /// `url` with anything between `://` and the last `@` of its authority removed (for lines about URLs
    /// that did not parse, too: credentials are never printed).
    static func withoutCredentials(_ url: String) -> String {
        let bytes = Array(url.utf8)
        guard let (scheme, authority, rest) = split(bytes), let at = authority.lastIndex(of: UInt8(ascii: "@")) else { return url }
        return String(decoding: scheme + Array("://".utf8) + authority[(at + 1)...] + rest, as: UTF8.self)
    }

    /// scheme, authority (up to the first `/`, `?` or `#`), and the rest.
    private static func split(_ bytes: [UInt8]) -> ([UInt8], [UInt8], [UInt8])? {
        let marker = Array("://".utf8)
        guard let start = (0..<bytes.count).first(where: { bytes[$0...].starts(with: marker) }) else { return nil }
        let afterMarker = start + marker.count
        let end = bytes[afterMarker...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        return (Array(bytes[..<start]), Array(bytes[afterMarker..<end]), Array(bytes[end...]))
    }
}

/// `%XX` decoding to bytes.
enum PercentEncoding {
    /// The bytes, or nil when a `%` is not followed by two hex digits.
    static func decode(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

/// A file name taken from a URL, safe to write: no `/`, no NUL or other control characters, no leading
/// dots (so never `.`, `..`, a hidden file or one of imgprep's own temporary names), at most 200 bytes.
enum SafeName {
    static let maxBytes = 200

    static func make(_ bytes: [UInt8]) -> String? {
        var kept = bytes.filter { $0 >= 0x20 && $0 != 0x7F }.map { $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        while kept.first == UInt8(ascii: ".") || kept.first == UInt8(ascii: " ") { kept.removeFirst() }
        while kept.last == UInt8(ascii: " ") { kept.removeLast() }
        guard !kept.isEmpty else { return nil }
        var name = RawPath.decode(kept)
        // Shortened by whole characters (a byte not valid UTF-8 is one character of RawPath's).
        while RawPath.bytes(name).count > maxBytes { name.removeLast() }
        return name
    }
}
