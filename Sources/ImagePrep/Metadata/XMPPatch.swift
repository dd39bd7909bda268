import Foundation

/// Edits to an XMP packet (UTF-8 RDF/XML) made on the bytes themselves: re-serialising XML would
/// reformat it, so a small scanner finds the elements and attributes and only those bytes change.
///
/// Covered: `tiff:Orientation`, and as location (as attributes or elements, under whatever prefix the
/// packet binds): every `exif:GPS*` property, `photoshop:City`, `State` and `Country`,
/// `Iptc4xmpCore:Location` and `CountryCode`, `Iptc4xmpExt:LocationCreated` and `LocationShown` (with
/// everything inside them), and DJI drones' `drone-dji:Gps*` and `AbsoluteAltitude`.
/// Not covered: other vendor namespaces.
public enum XMP {
    static let exifNamespace = "http://ns.adobe.com/exif/1.0/"
    static let tiffNamespace = "http://ns.adobe.com/tiff/1.0/"
    /// Properties that say where a picture was taken, by namespace (exif:GPS* and drone-dji:Gps* by prefix).
    static let locationProperties: [String: Set<String>] = [
        "http://ns.adobe.com/photoshop/1.0/": ["City", "State", "Country"],
        "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/": ["Location", "CountryCode"],
        "http://iptc.org/std/Iptc4xmpExt/2008-02-29/": ["LocationCreated", "LocationShown"],
        "http://www.dji.com/drone-dji/1.0/": ["AbsoluteAltitude"],
    ]
    static let locationPrefixes: [String: String] = [exifNamespace: "GPS", "http://www.dji.com/drone-dji/1.0/": "Gps"]

    /// The `tiff:Orientation` value, or nil if absent, not a number, or the packet is not well-formed.
    public static func orientation(in packet: [UInt8]) -> Int? {
        guard let elements = try? XMPScanner.elements(of: packet) else { return nil }
        for element in elements {
            for attribute in element.attributes where attribute.isOrientation {
                return Int(text(packet, attribute.value))
            }
            if element.isOrientation, let content = element.textContent {
                return Int(text(packet, content).trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        return nil
    }

    /// Whether the packet holds a location property; true also when it is not well-formed, since a
    /// location cannot be ruled out.
    public static func hasLocation(_ packet: [UInt8]) -> Bool {
        guard let elements = try? XMPScanner.elements(of: packet) else { return true }
        return elements.contains { $0.isLocation || $0.attributes.contains(where: \.isLocation) }
    }

    /// The packet with `tiff:Orientation` set to 1 and/or the location properties removed, all other
    /// bytes unchanged. Throws `.corrupt` when the packet is not well-formed, since a location could then hide.
    public static func patch(_ packet: [UInt8], resetOrientation: Bool, stripLocation: Bool) throws -> [UInt8] {
        var edits: [(range: Range<Int>, replacement: [UInt8])] = []
        for element in try XMPScanner.elements(of: packet) {
            if stripLocation, element.isLocation {
                // Take the indentation before it too, so no blank line is left behind.
                var start = element.range.lowerBound
                while start > 0, isWhitespace(packet[start - 1]) { start -= 1 }
                edits.append((start..<element.range.upperBound, []))
            }
            if resetOrientation, element.isOrientation, let content = element.textContent {
                edits.append((content, Array("1".utf8)))
            }
            for attribute in element.attributes {
                if stripLocation, attribute.isLocation { edits.append((attribute.range, [])) }
                if resetOrientation, attribute.isOrientation { edits.append((attribute.value, Array("1".utf8))) }
            }
        }
        // Elements nest, so an edit starting inside an earlier removal lies wholly within it.
        var result: [UInt8] = []
        var cursor = 0
        for edit in edits.sorted(by: { ($0.range.lowerBound, -$0.range.upperBound) < ($1.range.lowerBound, -$1.range.upperBound) }) where edit.range.lowerBound >= cursor {
            result += packet[cursor..<edit.range.lowerBound] + edit.replacement
            cursor = edit.range.upperBound
        }
        return result + packet[cursor...]
    }

    static func text(_ packet: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: packet[range], as: UTF8.self)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// An element or attribute name resolved against the namespace declarations in scope.
struct XMPName {
    let namespace: String?
    let local: String

    var isLocation: Bool {
        guard let namespace else { return false }
        if let prefix = XMP.locationPrefixes[namespace], local.hasPrefix(prefix) { return true }
        return XMP.locationProperties[namespace]?.contains(local) ?? false
    }
    var isOrientation: Bool { namespace == XMP.tiffNamespace && local == "Orientation" }
}

struct XMPAttribute {
    let name: XMPName
    /// From the whitespace before the name to the closing quote: what removing it takes out.
    let range: Range<Int>
    /// Between the quotes.
    let value: Range<Int>

    var isLocation: Bool { name.isLocation }
    var isOrientation: Bool { name.isOrientation }
}

struct XMPElement {
    let name: XMPName
    let attributes: [XMPAttribute]
    /// From "<" of the start tag to ">" of the end tag (or of "/>").
    var range: Range<Int>
    /// Between the tags, when the element has no child elements.
    var textContent: Range<Int>?

    var isLocation: Bool { name.isLocation }
    var isOrientation: Bool { name.isOrientation }
}

/// Just enough of XML to locate elements, attributes and namespace bindings: comments, CDATA,
/// processing instructions (the xpacket wrapper) and DOCTYPE are skipped; tags must balance.
enum XMPScanner {
    /// Names are resolved by walking up the open elements, so depth costs time per element; real
    /// packets nest about ten deep, and a packet of nothing but `<a>` would otherwise take seconds.
    static let maxDepth = 200

    private struct Open {
        var prefix: String?
        var local: String
        var attributes: [(prefix: String?, local: String, range: Range<Int>, value: Range<Int>)]
        var bindings: [String: String]   // prefix ("" for the default) -> namespace
        var start: Int
        var contentStart: Int
        var hasChildren = false
    }

    static func elements(of bytes: [UInt8]) throws -> [XMPElement] {
        var stack: [Open] = []
        var done: [XMPElement] = []
        var i = 0

        func fail(_ what: String) -> ImagePrepError { ImagePrepError(.corrupt, "malformed XMP: \(what)") }
        func find(_ needle: String, from start: Int) throws -> Int {
            let pattern = Array(needle.utf8)
            var j = start
            while j + pattern.count <= bytes.count {
                if bytes[j..<(j + pattern.count)].elementsEqual(pattern) { return j + pattern.count }
                j += 1
            }
            throw fail("unterminated markup at byte \(start)")
        }
        func has(_ prefix: String, at j: Int) -> Bool { bytes[j...].starts(with: prefix.utf8) }
        func skipSpace() { while i < bytes.count, XMP.isWhitespace(bytes[i]) { i += 1 } }
        func readName() throws -> (prefix: String?, local: String) {
            let start = i
            while i < bytes.count, !XMP.isWhitespace(bytes[i]), !"=/>\"'<".utf8.contains(bytes[i]) { i += 1 }
            guard i > start else { throw fail("a name is missing at byte \(start)") }
            let name = XMP.text(bytes, start..<i)
            guard let colon = name.firstIndex(of: ":") else { return (nil, name) }
            return (String(name[..<colon]), String(name[name.index(after: colon)...]))
        }
        func resolve(_ prefix: String?, bindings: [String: String]) -> String? {
            let key = prefix ?? ""
            return bindings[key] ?? stack.reversed().lazy.compactMap { $0.bindings[key] }.first
        }
        func close(_ element: Open, end: Int, endTagStart: Int?) {
            let attributes = element.attributes.map { a in
                // Unprefixed attributes belong to no namespace, unlike unprefixed elements.
                XMPAttribute(name: XMPName(namespace: a.prefix.flatMap { resolve($0, bindings: element.bindings) }, local: a.local),
                             range: a.range, value: a.value)
            }
            let content = element.hasChildren ? nil : endTagStart.map { element.contentStart..<$0 }
            done.append(XMPElement(
                name: XMPName(namespace: resolve(element.prefix, bindings: element.bindings), local: element.local),
                attributes: attributes, range: element.start..<end, textContent: content))
        }

        while i < bytes.count {
            guard bytes[i] == 0x3C else { i += 1; continue }   // text between tags
            if has("<!--", at: i) { i = try find("-->", from: i + 4); continue }
            if has("<![CDATA[", at: i) { i = try find("]]>", from: i + 9); continue }
            if has("<?", at: i) { i = try find("?>", from: i + 2); continue }
            if has("<!", at: i) { i = try find(">", from: i + 2); continue }
            let tagStart = i
            if has("</", at: i) {
                i += 2
                let name = try readName()
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3E, let open = stack.popLast(),
                      open.prefix == name.prefix, open.local == name.local else {
                    throw fail("unbalanced end tag at byte \(tagStart)")
                }
                i += 1
                close(open, end: i, endTagStart: tagStart)
                continue
            }
            i += 1
            let name = try readName()
            var element = Open(prefix: name.prefix, local: name.local, attributes: [], bindings: [:], start: tagStart, contentStart: 0)
            while true {
                let spaceStart = i
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated start tag at byte \(tagStart)") }
                if bytes[i] == 0x3E || has("/>", at: i) { break }
                let attribute = try readName()
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3D else { throw fail("attribute without a value at byte \(i)") }
                i += 1
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x27 else { throw fail("unquoted attribute at byte \(i)") }
                let quote = String(UnicodeScalar(bytes[i]))
                let valueStart = i + 1
                i = try find(quote, from: valueStart)
                let value = valueStart..<(i - 1)
                if attribute.prefix == "xmlns" { element.bindings[attribute.local] = XMP.text(bytes, value) }
                if attribute.prefix == nil, attribute.local == "xmlns" { element.bindings[""] = XMP.text(bytes, value) }
                element.attributes.append((attribute.prefix, attribute.local, spaceStart..<i, value))
            }
            if !stack.isEmpty { stack[stack.count - 1].hasChildren = true }
            if bytes[i] == 0x2F {
                i += 2
                close(element, end: i, endTagStart: nil)
            } else {
                i += 1
                element.contentStart = i
                guard stack.count < maxDepth else { throw fail("elements nested more than \(maxDepth) deep") }
                stack.append(element)
            }
        }
        guard stack.isEmpty else { throw fail("\(stack.count) element(s) never closed") }
        return done
    }
}
