import Foundation

/// Reads simple XMP property values by namespace and name, whether the packet writes them as
/// attributes or as elements (an `rdf:Seq`, `Bag` or `Alt` gives each of its items).
enum XMPValues {
    /// The property's values: one for an attribute or a simple element, every item of an array; nil
    /// when the packet does not have it.
    static func values(_ local: String, namespace: String, in elements: [XMPElement], packet: [UInt8]) -> [String]? {
        for (index, element) in elements.enumerated() {
            for attribute in element.attributes where attribute.name.namespace == namespace && attribute.name.local == local {
                return [XMP.text(packet, attribute.value)]
            }
            guard element.name.namespace == namespace, element.name.local == local else { continue }
            if let content = element.textContent { return [XMP.text(packet, content)] }
            // Elements are listed as they close, so the items of an array come before it.
            return elements[..<index].filter { $0.name.local == "li" && element.range.contains($0.range.lowerBound) }
                .map { $0.textContent.map { XMP.text(packet, $0) } ?? "" }
        }
        return nil
    }

    /// The first value of the property, trimmed (nil when absent or the packet cannot be read).
    static func text(_ local: String, namespace: String, in packet: [UInt8]) -> String? {
        guard let elements = try? XMPScanner.elements(of: packet),
              let first = values(local, namespace: namespace, in: elements, packet: packet)?.first else { return nil }
        return first.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func number(_ local: String, namespace: String, in packet: [UInt8]) -> Double? {
        text(local, namespace: namespace, in: packet).flatMap(decimal)
    }

    /// A plain decimal number (`-1.5`, `2e-3`), with the white space around it that XML allows and C++
    /// streams skip; nil for anything else: hex floats, `inf`, `nan`, `2,5`, entity references.
    static func decimal(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes = Array(trimmed.utf8)[...]
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        let integer = bytes.prefix(while: isDigit)
        bytes = bytes.dropFirst(integer.count)
        var fraction = ArraySlice<UInt8>()
        if bytes.first == UInt8(ascii: ".") {
            fraction = bytes.dropFirst().prefix(while: isDigit)
            bytes = bytes.dropFirst(1 + fraction.count)
        }
        guard !integer.isEmpty || !fraction.isEmpty else { return nil }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponent = bytes.prefix(while: isDigit)
            guard !exponent.isEmpty else { return nil }
            bytes = bytes.dropFirst(exponent.count)
        }
        guard bytes.isEmpty else { return nil }
        return Double(trimmed)
    }
}
