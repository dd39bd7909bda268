/// A big-endian reader confined to `offset..<end`; every read returns nil rather than crossing `end`.
struct ByteCursor {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        end = min(max(range.upperBound, 0), bytes.count)
        offset = min(max(range.lowerBound, 0), end)
    }

    var remaining: Int { end - offset }

    mutating func skip(_ count: Int) -> Void? {
        guard count >= 0, count <= remaining else { return nil }
        offset += count
        return ()
    }

    mutating func unsigned(_ byteCount: Int) -> UInt64? {
        guard byteCount <= remaining else { return nil }
        defer { offset += byteCount }
        return bytes[offset..<offset + byteCount].reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func u8() -> UInt8? { unsigned(1).map { UInt8($0) } }
    mutating func u16() -> UInt16? { unsigned(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { unsigned(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { unsigned(8) }

    /// Four bytes as text; bytes outside printable ASCII show as "?" so garbage stays readable.
    mutating func fourCC() -> String? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return String(decoding: bytes[offset..<offset + 4].map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") },
                      as: UTF8.self)
    }

    /// A NUL-terminated UTF-8 string (or the rest of the range when the NUL is missing).
    mutating func cString() -> String? {
        guard remaining > 0 else { return nil }
        let stop = bytes[offset..<end].firstIndex(of: 0) ?? end
        defer { offset = min(stop + 1, end) }
        return String(decoding: bytes[offset..<stop], as: UTF8.self)
    }
}
