/// The `irot`/`imir` transforms of the HEIF primary item and of its auxiliary image of one type, read
/// from the boxes (libheif 1.15 applies them but does not say which they were).
struct HeifItemTransforms {
    /// In the order libheif applies them: the quarter turn, then the mirror.
    var primary: [ExifOrientation]
    var auxiliary: [ExifOrientation]

    init?(_ file: [UInt8], auxiliaryType: String) {
        guard let meta = ISOBMFF.find(["meta"], in: file) else { return nil }
        let children = ISOBMFF.children(of: meta, in: file)
        guard let pitm = children.first(where: { $0.type == "pitm" }), let primaryID = ISOBMFF.primaryItemID(pitm, in: file),
              let iprp = children.first(where: { $0.type == "iprp" }) else { return nil }
        let boxes = ISOBMFF.children(of: iprp, in: file)
        guard let ipco = boxes.first(where: { $0.type == "ipco" }), let ipma = boxes.first(where: { $0.type == "ipma" }) else { return nil }
        let properties = ISOBMFF.children(of: ipco, in: file)
        let associations = ISOBMFF.propertyAssociations(ipma, in: file)
        func property(_ index: Int) -> ISOBMFF.Box? { index >= 1 && index <= properties.count ? properties[index - 1] : nil }
        func transforms(_ id: UInt32) -> [ExifOrientation] {
            (associations[id] ?? []).compactMap(property).compactMap { box -> ExifOrientation? in
                guard box.payload.count >= 1 else { return nil }
                let byte = file[box.payload.lowerBound]
                switch box.type {
                case "irot": return [ExifOrientation.up, .left, .down, .right][Int(byte & 3)]   // anticlockwise quarter turns
                case "imir": return byte & 1 == 0 ? .downMirrored : .upMirrored   // as libheif 1.15 reads it: 0 flips top to bottom
                default: return nil
                }
            }.filter { $0 != .up }
        }
        let auxiliaryID = associations.first { id, indices in
            id != primaryID && indices.compactMap(property).contains { $0.type == "auxC" && ISOBMFF.auxiliaryType($0, in: file) == auxiliaryType }
        }?.key
        primary = transforms(primaryID)
        auxiliary = auxiliaryID.map(transforms) ?? []
    }
}
