/// The little JSON a manifest needs, read and written here rather than through Foundation: the bytes must
/// be the same on every machine (key order, number and string forms), and a document from elsewhere is
/// read strictly (duplicate keys, fractions, deep nesting and stray bytes are refused, never guessed at).
// Sendable spelt out: inferring it for this recursive enum fails in Swift 6.3 ("circular reference").
enum ManifestJSON: Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case string(String)
    case array([ManifestJSON])
    /// In the order read (for duplicate checks); written sorted by the keys' UTF-8 bytes.
    case object([(key: String, value: ManifestJSON)])

    // MARK: writing

    /// Two-space indentation, `"key": value`, keys sorted by their UTF-8 bytes (Swift's `<` on String
    /// follows Unicode canonical order, which can differ between platforms' ICU-free and ICU builds).
    func write(into out: inout [UInt8], indent: Int = 0) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .integer(let value): out += Array(String(value).utf8)
        case .string(let text): Self.writeString(text, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += Array("[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                out += Array((index == 0 ? "\n" : ",\n").utf8) + Self.spaces(indent + 2)
                item.write(into: &out, indent: indent + 2)
            }
            out += [UInt8(ascii: "\n")] + Self.spaces(indent) + [UInt8(ascii: "]")]
        case .object(let members):
            guard !members.isEmpty else { out += Array("{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            let sorted = members.map { (bytes: Array($0.key.utf8), member: $0) }.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.map(\.member)
            for (index, member) in sorted.enumerated() {
                out += Array((index == 0 ? "\n" : ",\n").utf8) + Self.spaces(indent + 2)
                Self.writeString(member.key, into: &out)
                out += Array(": ".utf8)
                member.value.write(into: &out, indent: indent + 2)
            }
            out += [UInt8(ascii: "\n")] + Self.spaces(indent) + [UInt8(ascii: "}")]
        }
    }

    private static func spaces(_ count: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: " "), count: count) }

    /// UTF-8 as is; only `"`, `\` and control characters escaped (the short forms where JSON has them).
    /// A byte of a file name that is not UTF-8 is written `\udcXX` (0xXX + U+DC00, a lone low surrogate):
    /// Python's surrogateescape, so `json.load` gives the string that names the file, and `decode` reads
    /// back the same bytes.
    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for scalar in text.unicodeScalars {
            if let raw = RawPath.escapedByte(scalar) {
                out += Array(#"\udc"#.utf8) + [hex[Int(raw >> 4)], hex[Int(raw & 15)]]
                continue
            }
            guard scalar.isASCII else {
                out += Array(String(scalar).utf8)
                continue
            }
            let byte = UInt8(scalar.value)
            switch byte {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20, 0x7F:
                out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: reading

    /// A manifest's structure is 5 levels deep; anything much deeper is not one (and would cost stack).
    static let maxDepth = 16

    static func parse(_ bytes: [UInt8]) throws(ManifestSyntaxError) -> ManifestJSON {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.offset == bytes.count else { throw ManifestSyntaxError(offset: reader.offset, reason: "unexpected bytes after the document") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        func fail(_ reason: String) -> ManifestSyntaxError { ManifestSyntaxError(offset: offset, reason: reason) }

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[offset]) { offset += 1 }
        }

        mutating func expect(_ literal: String) throws(ManifestSyntaxError) {
            let expected = Array(literal.utf8)
            guard bytes.count - offset >= expected.count, Array(bytes[offset..<offset + expected.count]) == expected else {
                throw fail("expected \(literal)")
            }
            offset += expected.count
        }

        mutating func value(depth: Int) throws(ManifestSyntaxError) -> ManifestJSON {
            guard depth < ManifestJSON.maxDepth else { throw fail("nested too deeply") }
            guard offset < bytes.count else { throw fail("the document ends early") }
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                offset += 1
                var members: [(key: String, value: ManifestJSON)] = []
                var keys = Set<[UInt8]>()
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                    let start = offset
                    let key = try string()
                    // By bytes: Swift's == on String would also call two spellings of é the same key.
                    guard keys.insert(Array(key.utf8)).inserted else {
                        offset = start
                        throw fail("the key \"\(key)\" appears twice")
                    }
                    skipSpace()
                    try expect(":")
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard offset < bytes.count else { throw fail("the document ends early") }
                    if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                    try expect("}")
                    return .object(members)
                }
            case UInt8(ascii: "["):
                offset += 1
                var items: [ManifestJSON] = []
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard offset < bytes.count else { throw fail("the document ends early") }
                    if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                    try expect("]")
                    return .array(items)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .integer(try integer())
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            default:
                throw fail("expected a value")
            }
        }

        /// Whole numbers only, as JSON spells them (no leading zeros, no fraction or exponent), within Int.
        mutating func integer() throws(ManifestSyntaxError) -> Int {
            let start = offset
            var negative = false
            if bytes[offset] == UInt8(ascii: "-") { negative = true; offset += 1 }
            var digits: [UInt8] = []
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
                digits.append(bytes[offset])
                offset += 1
            }
            guard !digits.isEmpty, digits.count == 1 || digits[0] != UInt8(ascii: "0") else {
                offset = start
                throw fail("expected a number")
            }
            if offset < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[offset]) {
                throw fail("expected a whole number")
            }
            guard digits.count <= 18, let magnitude = Int(String(decoding: digits, as: UTF8.self)) else {
                offset = start
                throw fail("the number is out of range")
            }
            return negative ? -magnitude : magnitude
        }

        mutating func string() throws(ManifestSyntaxError) -> String {
            offset += 1  // the opening quote
            var out: [UInt8] = []
            while true {
                guard offset < bytes.count else { throw fail("a string is not closed") }
                let byte = bytes[offset]
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    // Refuses bytes that are not UTF-8 rather than replacing them.
                    guard let text = String(validating: out, as: UTF8.self) else { throw fail("a string is not UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    offset += 1
                    guard offset < bytes.count else { throw fail("a string is not closed") }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xDC80...0xDCFF).contains(scalar), let byte = RawPath.escape(UInt8(scalar - 0xDC00)) {
                            // A file name's byte that is not UTF-8, as `writeString` writes it.
                            out += Array(String(byte).utf8)
                            continue
                        }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                                throw fail("a lone surrogate in a \\u escape")
                            }
                            offset += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate in a \\u escape") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw fail("a lone surrogate in a \\u escape") }
                        out += Array(String(Character(unicode)).utf8)
                    default:
                        throw fail("an unknown escape in a string")
                    }
                case 0..<0x20:
                    throw fail("a control character in a string")
                default:
                    out.append(byte)
                    offset += 1
                }
            }
        }

        mutating func hex4() throws(ManifestSyntaxError) -> UInt32 {
            guard bytes.count - offset >= 4 else { throw fail("a short \\u escape") }
            var value: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw fail("a bad \\u escape")
                }
                value = value << 4 | UInt32(digit)
            }
            offset += 4
            return value
        }
    }
}

/// Why a document was refused as JSON, with the byte offset where reading stopped.
struct ManifestSyntaxError: Error {
    var offset: Int
    var reason: String
}
