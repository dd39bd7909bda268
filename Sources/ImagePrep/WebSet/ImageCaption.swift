/// The photo's own caption, for `alt`.
public enum ImageCaption {
    static let dcNamespace = "http://purl.org/dc/elements/1.1/"
    static let rdfNamespace = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    /// IPTC-IIM application record 2, dataset 120: Caption-Abstract.
    static let iimCaption = (record: UInt8(2), dataset: UInt8(120))
    static let imageDescriptionTag = 0x010E

    /// XMP `dc:description` (x-default first), else IPTC Caption-Abstract, else EXIF ImageDescription;
    /// "" when there is none. Valid UTF-8, control characters removed, trimmed; not escaped (the markup does that).
    /// A caption that is empty once cleaned counts as none, so the next one is taken; a damaged block is skipped.
    public static func text(in metadata: ImageMetadata) -> String {
        let candidates: [() -> String?] = [
            { metadata.xmp.flatMap(xmpDescription) },
            { metadata.iptc.flatMap(iptcCaption) },
            { metadata.exif.flatMap(exifDescription) },
        ]
        for candidate in candidates {
            if let text = candidate().map(cleaned), !text.isEmpty { return text }
        }
        return ""
    }

    /// `dc:description`'s x-default item (else its first), or its text when it is a simple property.
    static func xmpDescription(_ packet: [UInt8]) -> String? {
        guard let elements = try? XMPScanner.elements(of: packet) else { return nil }
        for description in elements where description.name.namespace == dcNamespace && description.name.local == "description" {
            // Elements are listed as they close, so the items come before their description.
            let items = elements.filter {
                $0.name.namespace == rdfNamespace && $0.name.local == "li" && description.range.contains($0.range.lowerBound)
            }
            let item = items.first { $0.attributes.contains { $0.name.local == "lang" && XMP.text(packet, $0.value) == "x-default" } }
                ?? items.first
            if let content = (item ?? description).textContent { return xmlText(Array(packet[content])) }
        }
        // As an attribute of rdf:Description (no language alternatives then).
        for element in elements {
            for attribute in element.attributes where attribute.name.namespace == dcNamespace && attribute.name.local == "description" {
                return xmlText(Array(packet[attribute.value]))
            }
        }
        return nil
    }

    /// XML character data: CDATA sections kept as they are, entity and character references decoded.
    static func xmlText(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(where: { $0 == "&" || $0 == "<" }) {
            out += rest[..<amp]
            rest = rest[amp...]
            if rest.hasPrefix("<![CDATA["), let end = rest.range(of: "]]>") {
                out += rest[rest.index(rest.startIndex, offsetBy: 9)..<end.lowerBound]
                rest = rest[end.upperBound...]
                continue
            }
            if rest.first == "&", let semicolon = rest.prefix(12).firstIndex(of: ";"),
               let decoded = entity(rest[rest.index(after: rest.startIndex)..<semicolon]) {
                out.append(decoded)
                rest = rest[rest.index(after: semicolon)...]
                continue
            }
            out.append(rest.removeFirst())
        }
        return out + rest
    }

    static func entity(_ name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }

    static func iptcCaption(_ resources: [UInt8]) -> String? {
        guard let iim = IPTC.iim(in: resources), let datasets = try? IIMDataset.parse(iim) else { return nil }
        guard let caption = datasets.first(where: { $0.record == iimCaption.record && $0.number == iimCaption.dataset }) else { return nil }
        // The header is 5 bytes, or more with an extended length: the data is the dataset's last `length` bytes.
        let header = iim[caption.range.lowerBound + 3] & 0x80 != 0 ? 5 + Int(iim[caption.range.lowerBound + 4] & 0x7F) : 5
        guard caption.range.count >= header else { return nil }
        return legacyText(Array(iim[(caption.range.lowerBound + header)..<caption.range.upperBound]))
    }

    static func exifDescription(_ tiff: [UInt8]) -> String? {
        guard let block = try? TIFFBlock(tiff), let ifd0 = try? block.directory(at: block.ifd0Offset, "IFD0"),
              let entry = ifd0.entry(imageDescriptionTag), entry.type == 2 || entry.type == 7 || entry.type == 1,
              let range = try? block.valueRange(entry) else { return nil }
        // ASCII is NUL-terminated; what follows the first NUL is padding.
        let bytes = block.bytes[range].prefix { $0 != 0 }
        return legacyText(Array(bytes))
    }

    /// IPTC and EXIF text is UTF-8 in most files today, Latin-1 in older ones: UTF-8 when it is valid, else Latin-1.
    static func legacyText(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// Tabs and line breaks (NEL and U+2028/9 too) become spaces, other control characters (C0, DEL, C1,
    /// bidi overrides and isolates, BOM) go,
    /// runs of spaces shrink to one, and the ends are trimmed.
    static func cleaned(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let isSpace = scalar == " " || value == 0x09 || value == 0x0A || value == 0x0D || value == 0x85 || value == 0x2028 || value == 0x2029
            if isSpace {
                if !lastWasSpace { scalars.append(" ") }
                lastWasSpace = true
                continue
            }
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value) || value == 0xFEFF
            if isControl { continue }
            scalars.append(scalar)
            lastWasSpace = false
        }
        if scalars.last == " " { scalars.removeLast() }
        return String(scalars)
    }
}
