import Foundation

/// Reads simple XMP property values by namespace and name, whether the packet writes them as
/// attributes or as elements (for an `rdf:Seq` of per-channel values, the first item).
enum XMPValues {
    static func text(_ local: String, namespace: String, in packet: [UInt8]) -> String? {
        guard let elements = try? XMPScanner.elements(of: packet) else { return nil }
        for (index, element) in elements.enumerated() {
            for attribute in element.attributes where attribute.name.namespace == namespace && attribute.name.local == local {
                return XMP.text(packet, attribute.value)
            }
            guard element.name.namespace == namespace, element.name.local == local else { continue }
            if let content = element.textContent { return XMP.text(packet, content).trimmingCharacters(in: .whitespacesAndNewlines) }
            // Elements are listed as they close, so the items of a Seq come before it: the first one inside it.
            let item = elements[..<index].first { $0.name.local == "li" && element.range.contains($0.range.lowerBound) }
            if let content = item?.textContent { return XMP.text(packet, content).trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        return nil
    }

    static func number(_ local: String, namespace: String, in packet: [UInt8]) -> Double? {
        text(local, namespace: namespace, in: packet).flatMap(Double.init)
    }

    /// Whether the packet has any property of `namespace`.
    static func mentions(_ namespace: String, in packet: [UInt8]) -> Bool {
        guard let elements = try? XMPScanner.elements(of: packet) else { return false }
        return elements.contains { $0.name.namespace == namespace || $0.attributes.contains { $0.name.namespace == namespace } }
    }
}
