/// IPTC-IIM (keywords, by-line, copyright, caption, location) inside Photoshop image resources, as a
/// JPEG APP13 "Photoshop 3.0" segment carries them. Edits touch only the IPTC resource (and its MD5
/// digest); every other resource keeps its bytes.
public enum IPTC {
    /// Resource 0x0404 holds the IIM datasets; 0x0425 holds the MD5 of them, which readers use to tell
    /// whether IPTC and XMP still agree (kept true when we edit).
    static let iimResource: UInt16 = 0x0404
    static let digestResource: UInt16 = 0x0425

    /// Application record (2) datasets that say where a picture was taken: 90 City, 92 Sub-location,
    /// 95 Province/State, 100 Country code, 101 Country name.
    static let locationDatasets: Set<UInt8> = [90, 92, 95, 100, 101]

    /// A one-resource block holding bare IIM datasets (as a HEIF `iptc` item stores them).
    public static func resources(wrappingIIM iim: [UInt8]) -> [UInt8] {
        PhotoshopResource(signature: PhotoshopResource.signature8BIM, id: iimResource, name: [], data: iim).bytes
    }

    /// The IIM datasets of the first IPTC resource, or nil when there is none or the block is malformed.
    public static func iim(in resources: [UInt8]) -> [UInt8]? {
        (try? PhotoshopResource.parse(resources))?.first { $0.id == iimResource }?.data
    }

    /// Whether the IPTC record names a place; true also when it cannot be read, since a place cannot be ruled out.
    public static func hasLocation(_ resources: [UInt8]) -> Bool {
        guard let parsed = try? PhotoshopResource.parse(resources) else { return true }
        for resource in parsed where resource.id == iimResource {
            guard let datasets = try? IIMDataset.parse(resource.data) else { return true }
            if datasets.contains(where: \.isLocation) { return true }
        }
        return false
    }

    /// The resources with the location datasets removed from the IPTC record, its digest updated, and
    /// everything else byte for byte. Throws `.corrupt` when the block cannot be read, since a place could
    /// then hide in it.
    public static func strippingLocation(_ resources: [UInt8]) throws -> [UInt8] {
        var parsed = try PhotoshopResource.parse(resources)
        var edited: (old: [UInt8], new: [UInt8])?
        for index in parsed.indices where parsed[index].id == iimResource {
            let datasets = try IIMDataset.parse(parsed[index].data)
            guard datasets.contains(where: \.isLocation) else { continue }
            let kept = datasets.filter { !$0.isLocation }.flatMap { parsed[index].data[$0.range] }
            edited = edited ?? (parsed[index].data, kept)
            parsed[index].data = kept
        }
        guard let edited else { return resources }   // nothing to remove: not a byte changes
        // A digest that matched the record is made to match again; a stale one stays stale, as it was.
        for index in parsed.indices where parsed[index].id == digestResource && parsed[index].data == MD5.digest(edited.old) {
            parsed[index].data = MD5.digest(edited.new)
        }
        return parsed.flatMap(\.bytes)
    }
}

/// One image resource: signature ("8BIM" and a few rarer ones), 16-bit id, a Pascal name padded to an
/// even length, a 32-bit size, then the data padded to an even length.
struct PhotoshopResource: Equatable {
    static let signature8BIM: [UInt8] = Array("8BIM".utf8)
    static let signatures: [[UInt8]] = ["8BIM", "PHUT", "AgHg", "DCSR", "MeSa"].map { Array($0.utf8) }

    var signature: [UInt8]
    var id: UInt16
    /// The name's characters, without its length byte or padding.
    var name: [UInt8]
    var data: [UInt8]

    var bytes: [UInt8] {
        var out = signature + [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(name.count)] + name
        if out.count % 2 != 0 { out.append(0) }   // the name (with its length byte) has an even length
        let size = UInt32(data.count)
        out += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        out += data
        if data.count % 2 != 0 { out.append(0) }
        return out
    }

    /// Every resource in the block. Zero bytes at the end are padding; anything else that is not a whole
    /// resource is an error (`.corrupt`). Every length is checked against what is left before it is used.
    static func parse(_ block: [UInt8]) throws -> [PhotoshopResource] {
        func malformed(_ what: String) -> ImagePrepError { ImagePrepError(.corrupt, "malformed Photoshop resources: \(what)") }
        var resources: [PhotoshopResource] = []
        var i = 0
        while i < block.count {
            if block[i...].allSatisfy({ $0 == 0 }) { break }
            guard block.count - i >= 4 + 2 + 2, signatures.contains(where: { block[i..<(i + 4)].elementsEqual($0) }) else {
                throw malformed("no resource signature at byte \(i)")
            }
            let signature = Array(block[i..<(i + 4)])
            let id = UInt16(block[i + 4]) << 8 | UInt16(block[i + 5])
            let nameLength = Int(block[i + 6])
            let nameField = (1 + nameLength + 1) & ~1   // even
            let sizeAt = i + 6 + nameField
            guard sizeAt + 4 <= block.count else { throw malformed("resource 0x\(String(id, radix: 16)) is cut short") }
            let name = Array(block[(i + 7)..<(i + 7 + nameLength)])
            let size = Int(block[sizeAt]) << 24 | Int(block[sizeAt + 1]) << 16 | Int(block[sizeAt + 2]) << 8 | Int(block[sizeAt + 3])
            let dataAt = sizeAt + 4
            guard size <= block.count - dataAt else { throw malformed("resource 0x\(String(id, radix: 16)) runs past the end") }
            resources.append(PhotoshopResource(signature: signature, id: id, name: name, data: Array(block[dataAt..<(dataAt + size)])))
            i = min(dataAt + size + size % 2, block.count)
        }
        return resources
    }
}

/// One IIM dataset: tag marker 0x1C, record, dataset number, then a 16-bit length, or (high bit set) the
/// number of bytes of a longer length.
struct IIMDataset {
    var record: UInt8
    var number: UInt8
    /// The whole dataset, header included, within the IIM bytes.
    var range: Range<Int>

    var isLocation: Bool { record == 2 && IPTC.locationDatasets.contains(number) }

    static func parse(_ iim: [UInt8]) throws -> [IIMDataset] {
        func malformed(_ what: String) -> ImagePrepError { ImagePrepError(.corrupt, "malformed IPTC record: \(what)") }
        var datasets: [IIMDataset] = []
        var i = 0
        while i < iim.count {
            if iim[i...].allSatisfy({ $0 == 0 }) { break }   // padding
            guard iim[i] == 0x1C, iim.count - i >= 5 else { throw malformed("no dataset marker at byte \(i)") }
            var length = Int(iim[i + 3]) << 8 | Int(iim[i + 4])
            var dataAt = i + 5
            if length & 0x8000 != 0 {
                // Extended dataset: the low 15 bits count the bytes of the real length (at most 4 here).
                let lengthBytes = length & 0x7FFF
                guard (1...4).contains(lengthBytes), iim.count - dataAt >= lengthBytes else {
                    throw malformed("bad extended length at byte \(i)")
                }
                length = iim[dataAt..<(dataAt + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
                dataAt += lengthBytes
            }
            guard length <= iim.count - dataAt else { throw malformed("dataset \(iim[i + 1]):\(iim[i + 2]) runs past the end") }
            datasets.append(IIMDataset(record: iim[i + 1], number: iim[i + 2], range: i..<(dataAt + length)))
            i = dataAt + length
        }
        return datasets
    }
}
