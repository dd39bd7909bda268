import Foundation

/// Ultra HDR's XMP: the `hdrgm` values in the gain-map image, the `hdrgm:Version` and GContainer
/// directory in the primary image, and their removal where a file no longer has a gain map.
enum GainMapXMP {
    static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"
    static let containerNamespace = "http://ns.google.com/photos/1.0/container/"
    static let itemNamespace = "http://ns.google.com/photos/1.0/container/item/"

    /// The values of a gain-map image's `hdrgm` XMP, with the Adobe specification's defaults for the
    /// optional ones, checked (`GainMapMetadata.validated`); nil when the packet says nothing of `hdrgm`.
    /// What libultrahdr would refuse is a problem too: a packet that is not well-formed XML or declares
    /// entities, a Version other than 1.0, a missing GainMapMax or HDRCapacityMax, a value that is not a
    /// plain decimal number, an HDR base rendition. A per-channel value is an `rdf:Seq` of three (red,
    /// green, blue); any other count, or a sequence where the format allows one value, is a problem.
    static func metadata(in packet: [UInt8]) -> Result<GainMapMetadata, GainMapProblem>? {
        guard GainMapClaims.mentionsHDRGainMap(packet) else { return nil }
        if containsBytes(packet, Array("<!ENTITY".utf8)) || containsBytes(packet, Array("<!DOCTYPE".utf8)) {
            return .failure(GainMapProblem("its XMP declares a document type or entities"))
        }
        let elements: [XMPElement]
        do { elements = try XMPScanner.elements(of: packet) } catch {
            return .failure(GainMapProblem("its XMP cannot be read (\(error))"))
        }
        func texts(_ name: String) -> [String]? {
            XMPValues.values(name, namespace: namespace, in: elements, packet: packet)?
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        func text(_ name: String) -> Result<String?, GainMapProblem> {
            guard let values = texts(name) else { return .success(nil) }
            guard values.count == 1 else {
                return .failure(GainMapProblem("hdrgm:\(name) holds \(values.count) values (it has one for the whole map)"))
            }
            return .success(values[0])
        }
        func parsed(_ name: String, _ value: String) -> Result<Double, GainMapProblem> {
            XMPValues.decimal(value).map { .success($0) }
                ?? .failure(GainMapProblem("hdrgm:\(name) \"\(String(value.prefix(40)))\" is not a number"))
        }
        func number(_ name: String, default fallback: Double?) -> Result<Double, GainMapProblem> {
            switch text(name) {
            case .failure(let problem): return .failure(problem)
            case .success(nil):
                return fallback.map { .success($0) } ?? .failure(GainMapProblem("hdrgm:\(name) is missing"))
            case .success(let value?): return parsed(name, value)
            }
        }
        /// A channel value: one for every channel, or a sequence of three.
        func numbers(_ name: String, default fallback: Double?) -> Result<[Double], GainMapProblem> {
            guard let values = texts(name) else {
                return fallback.map { .success([$0]) } ?? .failure(GainMapProblem("hdrgm:\(name) is missing"))
            }
            guard values.count == 1 || values.count == 3 else {
                return .failure(GainMapProblem("hdrgm:\(name) holds \(values.count) values (one, or three for red, green and blue)"))
            }
            var numbers: [Double] = []
            for value in values {
                switch parsed(name, value) {
                case .success(let number): numbers.append(number)
                case .failure(let problem): return .failure(problem)
                }
            }
            return .success(numbers)
        }
        switch text("Version") {
        case .failure(let problem): return .failure(problem)
        case .success("1.0"): break
        case .success(nil): return .failure(GainMapProblem("hdrgm:Version is missing"))
        case .success(let version?): return .failure(GainMapProblem("hdrgm:Version is \"\(String(version.prefix(40)))\" (only 1.0 is defined)"))
        }
        switch text("BaseRenditionIsHDR") {
        case .failure(let problem): return .failure(problem)
        case .success(nil), .success("False"): break
        case .success("True"): return .failure(GainMapProblem("its base rendition is the HDR one (not supported)"))
        case .success(let other?): return .failure(GainMapProblem("hdrgm:BaseRenditionIsHDR is \"\(String(other.prefix(40)))\""))
        }
        do throws(GainMapProblem) {
            let perChannel = [try numbers("GainMapMin", default: 0).get(), try numbers("GainMapMax", default: nil).get(),
                              try numbers("Gamma", default: 1).get(), try numbers("OffsetSDR", default: 1.0 / 64).get(),
                              try numbers("OffsetHDR", default: 1.0 / 64).get()]
            let count = perChannel.map(\.count).max() ?? 1
            let channels = (0..<count).map { index in
                let value = { (values: [Double]) in values.count == 1 ? values[0] : values[index] }
                return GainMapChannelValues(gainMapMin: value(perChannel[0]), gainMapMax: value(perChannel[1]),
                                            gamma: value(perChannel[2]), offsetSDR: value(perChannel[3]),
                                            offsetHDR: value(perChannel[4]))
            }
            let metadata = GainMapMetadata(channels: channels, hdrCapacityMin: try number("HDRCapacityMin", default: 0).get(),
                                           hdrCapacityMax: try number("HDRCapacityMax", default: nil).get())
            return metadata.validated()
        } catch {
            return .failure(error)
        }
    }

    /// The gain-map image's packet: every value, as libultrahdr writes it; per-channel values as
    /// `rdf:Seq` elements of three, as the Adobe specification writes them.
    static func mapPacket(_ metadata: GainMapMetadata) -> [UInt8] {
        let capacities = [("HDRCapacityMin", metadata.hdrCapacityMin), ("HDRCapacityMax", metadata.hdrCapacityMax)]
        var attributes = [(String, Double)]()
        var elements = ""
        if metadata.isPerChannel {
            for (index, (name, _)) in metadata.channels[0].named.enumerated() {
                let items = metadata.channels.map { "\n          <rdf:li>\(decimal($0.named[index].1))</rdf:li>" }.joined()
                elements += "\n      <hdrgm:\(name)>\n        <rdf:Seq>\(items)\n        </rdf:Seq>\n      </hdrgm:\(name)>"
            }
        } else {
            attributes = metadata.channels[0].named
        }
        attributes += capacities
        let written = attributes.map { "\n      hdrgm:\($0.0)=\"\(decimal($0.1))\"" }.joined()
        let close = elements.isEmpty ? "/>" : ">\(elements)\n    </rdf:Description>"
        return Array(("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
              <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description rdf:about=""
                  xmlns:hdrgm="\(namespace)"
                  hdrgm:Version="1.0"\(written)
                  hdrgm:BaseRenditionIsHDR="False"\(close)
              </rdf:RDF>
            </x:xmpmeta>
            """).utf8)
    }

    /// The description the primary image gains: the version and where the gain map is.
    static func primaryDescription(mapLength: Int) -> String {
        """
        <rdf:Description rdf:about=""
              xmlns:hdrgm="\(namespace)"
              xmlns:Container="\(containerNamespace)"
              xmlns:Item="\(itemNamespace)"
              hdrgm:Version="1.0">
              <Container:Directory>
                <rdf:Seq>
                  <rdf:li rdf:parseType="Resource">
                    <Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/>
                  </rdf:li>
                  <rdf:li rdf:parseType="Resource">
                    <Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(mapLength)"/>
                  </rdf:li>
                </rdf:Seq>
              </Container:Directory>
            </rdf:Description>
        """
    }

    /// The primary's packet: the source's own (claims of an earlier gain map removed) with the
    /// description added after `<rdf:RDF ...>`, or a packet of its own when there is none or it
    /// cannot be read.
    static func primaryPacket(_ source: [UInt8]?, mapLength: Int) -> [UInt8] {
        let description = Array(primaryDescription(mapLength: mapLength).utf8)
        if let source, let cleaned = try? removingClaims(source),
           let rdf = try? XMPScanner.elements(of: cleaned).first(where: { $0.name.local == "RDF" }),
           let open = cleaned[rdf.range].firstIndex(of: 0x3E), cleaned[open - 1] != 0x2F {
            return Array(cleaned[...open]) + [0x0A] + description + cleaned[(open + 1)...]
        }
        return Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
              <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            
            """.utf8) + description + Array("\n  </rdf:RDF>\n</x:xmpmeta>".utf8)
    }

    /// The packet without anything that says there is a gain map: `hdrgm` properties, the GContainer
    /// directory, Apple's `HDRGainMap` properties, and their namespace declarations.
    static func removingClaims(_ packet: [UInt8]) throws -> [UInt8] {
        let claimed: Set<String> = [namespace, containerNamespace, itemNamespace, AppleGainMap.xmpNamespace]
        var removals: [Range<Int>] = []
        for element in try XMPScanner.elements(of: packet) {
            if let space = element.name.namespace, claimed.contains(space) {
                var start = element.range.lowerBound
                while start > 0, XMP.isWhitespace(packet[start - 1]) { start -= 1 }
                removals.append(start..<element.range.upperBound)
                continue
            }
            for attribute in element.attributes {
                let isClaim = attribute.name.namespace.map(claimed.contains) ?? false
                let declaresClaim = attribute.name.namespace == nil && claimed.contains(XMP.text(packet, attribute.value))
                if isClaim || declaresClaim { removals.append(attribute.range) }
            }
        }
        var result: [UInt8] = []
        var cursor = 0
        for range in removals.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.lowerBound >= cursor {
            result += packet[cursor..<range.lowerBound]
            cursor = range.upperBound
        }
        return result + packet[cursor...]
    }

    /// Up to six decimals, no trailing zeros: the same text for the same value everywhere.
    static func decimal(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
