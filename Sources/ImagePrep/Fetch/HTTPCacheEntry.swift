/// A stored response: the body and what revalidates it. On disk: a tag naming the layout, the URL, the
/// validators, the time stored and the max-age, the body, each length-prefixed, then a SHA-256 of all
/// of it. Every read is checked (tag, lengths, URL, checksum, validators) before anything is used.
struct HTTPCacheEntry: Sendable, Equatable {
    var url: String
    var etag: String?
    var lastModified: String?
    /// Seconds since 1970 when the response arrived (or was last revalidated).
    var storedAt: Int64
    /// `Cache-Control: max-age`, in seconds; 0 revalidates every time.
    var maxAge: Int64
    var body: [UInt8]

    /// Within max-age: used without a request. A clock that went back makes an entry stale.
    func isFresh(now: Int64) -> Bool { now >= storedAt && now - storedAt < maxAge }

    private static let tag = Array("imgprep-http-cache-1\n".utf8)

    func encoded() -> [UInt8] {
        var file = Self.tag
        func field(_ bytes: [UInt8]) {
            append(UInt64(bytes.count), to: &file)
            file += bytes
        }
        field(Array(url.utf8))
        field(Array((etag ?? "").utf8))
        field(Array((lastModified ?? "").utf8))
        append(UInt64(bitPattern: storedAt), to: &file)
        append(UInt64(bitPattern: maxAge), to: &file)
        field(body)
        file += SHA256.hash(file)
        return file
    }

    /// The entry for `url` in `file`, or nil when anything does not check.
    static func decode(_ file: [UInt8], url: String) -> HTTPCacheEntry? {
        guard file.count >= tag.count + 32, file.starts(with: tag) else { return nil }
        let content = file[..<(file.count - 32)]
        guard SHA256.hash(Array(content)) == Array(file[(file.count - 32)...]) else { return nil }
        var offset = tag.count
        func integer() -> UInt64? {
            guard content.count - offset >= 8 else { return nil }
            defer { offset += 8 }
            return content[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        func field() -> [UInt8]? {
            guard let length = integer(), length <= UInt64(content.count - offset) else { return nil }
            defer { offset += Int(length) }
            return Array(content[offset..<(offset + Int(length))])
        }
        guard let storedURL = field(), storedURL == Array(url.utf8),
              let etag = field(), let lastModified = field(),
              let storedAt = integer(), let maxAge = integer(),
              let body = field(), offset == content.count else { return nil }
        let entry = HTTPCacheEntry(url: url, etag: Validators.etag(String(decoding: etag, as: UTF8.self)),
                                   lastModified: Validators.date(String(decoding: lastModified, as: UTF8.self)),
                                   storedAt: Int64(bitPattern: storedAt), maxAge: max(0, Int64(bitPattern: maxAge)), body: body)
        // A validator that does not pass the checks now was not written by this layout's writer.
        guard entry.etag != nil || etag.isEmpty, entry.lastModified != nil || lastModified.isEmpty else { return nil }
        return entry
    }

    private func append(_ value: UInt64, to file: inout [UInt8]) {
        file += (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }
}

/// What a response's caching headers may hold before they are stored or sent back: anything else is
/// dropped (the response is then not revalidated by it).
enum Validators {
    /// An ETag: printable ASCII without spaces (`"abc"` or `W/"abc"`), at most 200 bytes.
    static func etag(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty, bytes.count <= 200, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return value
    }

    /// An HTTP date as sent (`Tue, 01 Dec 2026 18:00:00 GMT`): letters, digits, spaces, `,`, `:` and `-`,
    /// at most 40 bytes. Sent back as it came (servers compare it as text).
    static func date(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        let allowed = Set(Array(" ,:-".utf8))
        guard !bytes.isEmpty, bytes.count <= 40,
              bytes.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || allowed.contains($0) })
        else { return nil }
        return value
    }
}

/// The parts of `Cache-Control` this cache follows: `no-store` (never stored), `max-age=N` (used
/// without a request for N seconds, at most a year), `no-cache` (stored, revalidated every time).
struct CacheControl: Equatable {
    var noStore = false
    var maxAge: Int64 = 0

    static let maxMaxAge: Int64 = 365 * 24 * 3600

    init(noStore: Bool, maxAge: Int64) {
        self.noStore = noStore
        self.maxAge = maxAge
    }

    init(_ header: String?) {
        guard let header else { return }
        var noCache = false
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "max-age":
                // Digits only; a huge number is a year.
                if parts.count == 2, !parts[1].isEmpty, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                    maxAge = parts[1].count > 10 ? Self.maxMaxAge : min(Int64(parts[1]) ?? 0, Self.maxMaxAge)
                }
            default: continue
            }
        }
        if noCache { maxAge = 0 }
    }
}
