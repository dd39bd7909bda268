/// How an entry maps to the manifest's JSON and back: the shape written is the only shape read.
extension ManifestEntry {
    var json: ManifestJSON {
        .object([
            ("alt", .string(alt)), ("color", .string(color)), ("height", .integer(height)), ("html", .string(html)),
            ("placeholder", placeholder.map { .object([($0.kind.rawValue, .string($0.value))]) } ?? .null),
            ("variants", .array(variants.map(\.json))), ("width", .integer(width)),
        ])
    }

    init(json: ManifestJSON, at path: String) throws {
        let fields = try ManifestReader.members(json, ["alt", "color", "height", "html", "placeholder", "variants", "width"], at: path)
        let placeholder: Placeholder?
        switch fields["placeholder"]! {  // members() checked every key is there
        case .null:
            placeholder = nil
        case .object(let members) where members.count == 1:
            guard let kind = PlaceholderKind(rawValue: members[0].key), kind != .none,
                  case .string(let value) = members[0].value, !value.isEmpty else {
                throw ManifestReader.Refusal(path: "\(path).placeholder", reason: "expected {\"thumbhash\"|\"blurhash\"|\"lqip\": TEXT}")
            }
            placeholder = Placeholder(kind: kind, value: value)
        default:
            throw ManifestReader.Refusal(path: "\(path).placeholder", reason: "expected null or an object with one key")
        }
        guard case .array(let items) = fields["variants"]!, !items.isEmpty else {
            throw ManifestReader.Refusal(path: "\(path).variants", reason: "expected a list of at least one variant")
        }
        let color = try ManifestReader.string(fields["color"]!, at: "\(path).color")
        guard color.utf8.count == 7, color.hasPrefix("#"), color.utf8.dropFirst().allSatisfy({ ManifestReader.isHexDigit($0) }) else {
            throw ManifestReader.Refusal(path: "\(path).color", reason: "expected #rrggbb")
        }
        self.init(width: try ManifestReader.size(fields["width"]!, at: "\(path).width"),
                  height: try ManifestReader.size(fields["height"]!, at: "\(path).height"),
                  alt: try ManifestReader.string(fields["alt"]!, at: "\(path).alt"),
                  color: color, placeholder: placeholder,
                  variants: try items.enumerated().map { try ManifestVariant(json: $0.element, at: "\(path).variants[\($0.offset)]") },
                  html: try ManifestReader.string(fields["html"]!, at: "\(path).html"))
    }
}

extension ManifestVariant {
    var json: ManifestJSON {
        var members: [(String, ManifestJSON)] = animated ? [("animated", .bool(true))] : []
        members += [("bytes", .integer(bytes)), ("format", .string(format)), ("height", .integer(height))]
        if hdr { members.append(("hdr", .bool(true))) }
        return .object(members + [("path", .string(path)), ("width", .integer(width))])
    }

    init(json: ManifestJSON, at path: String) throws {
        let fields = try ManifestReader.members(json, ["bytes", "format", "height", "path", "width"], optional: ["animated", "hdr"], at: path)
        func flag(_ key: String) throws -> Bool {
            switch fields[key] {
            case nil: return false
            case .bool(true)?: return true
            default: throw ManifestReader.Refusal(path: "\(path).\(key)", reason: "expected true, or no such key")
            }
        }
        let format = try ManifestReader.string(fields["format"]!, at: "\(path).format")  // members() checked the keys
        guard PictureMarkup.mediaType(format) != nil else {
            throw ManifestReader.Refusal(path: "\(path).format", reason: "unknown format \(ManifestReader.quoted(format))")
        }
        let file = try ManifestReader.string(fields["path"]!, at: "\(path).path")
        guard !file.isEmpty, !file.utf8.contains(0) else {
            throw ManifestReader.Refusal(path: "\(path).path", reason: "expected a file's path")
        }
        guard case .integer(let bytes) = fields["bytes"]!, bytes >= 0 else {
            throw ManifestReader.Refusal(path: "\(path).bytes", reason: "expected a byte count")
        }
        self.init(format: format, width: try ManifestReader.size(fields["width"]!, at: "\(path).width"),
                  height: try ManifestReader.size(fields["height"]!, at: "\(path).height"), bytes: bytes, path: file,
                  animated: try flag("animated"), hdr: try flag("hdr"))
    }
}

/// Strict field access for `decode`: each refusal names where in the document it is.
enum ManifestReader {
    struct Refusal: Error {
        var path: String
        var reason: String
    }

    /// Picture sides as any writer here allows them (the pixel cap's square root is far below).
    static let maxSide = 1 << 20

    /// An object's members, which must be exactly `keys` and any of `optional`.
    static func members(_ value: ManifestJSON, _ keys: [String], optional: [String] = [], at path: String) throws -> [String: ManifestJSON] {
        guard case .object(let members) = value else { throw Refusal(path: path, reason: "expected an object") }
        var found: [String: ManifestJSON] = [:]
        for member in members {
            guard keys.contains(member.key) || optional.contains(member.key) else {
                throw Refusal(path: path, reason: "unknown key \(quoted(member.key))")
            }
            found[member.key] = member.value
        }
        if let missing = keys.first(where: { found[$0] == nil }) { throw Refusal(path: path, reason: "no \(quoted(missing))") }
        return found
    }

    static func string(_ value: ManifestJSON, at path: String) throws -> String {
        guard case .string(let text) = value else { throw Refusal(path: path, reason: "expected a string") }
        return text
    }

    static func size(_ value: ManifestJSON, at path: String) throws -> Int {
        guard case .integer(let side) = value, (1...maxSide).contains(side) else {
            throw Refusal(path: path, reason: "expected a whole number of pixels from 1 to \(maxSide)")
        }
        return side
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// A name for a message: quoted, at most 200 characters, control characters shown as escapes so a
    /// hostile key cannot move the terminal's cursor.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars.prefix(200) {
            out += scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return out + (text.unicodeScalars.count > 200 ? "…\"" : "\"")
    }
}
