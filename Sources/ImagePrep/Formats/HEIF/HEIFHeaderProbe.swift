extension HeaderProbe {
    /// The `ispe` property of the primary item (for a grid, the whole picture's size); alpha when an
    /// auxiliary image of an alpha type refers to it.
    static func heif(_ file: [UInt8]) -> ImageHeader? {
        guard let meta = ISOBMFF.find(["meta"], in: file) else { return nil }
        let children = ISOBMFF.children(of: meta, in: file)
        guard let pitm = children.first(where: { $0.type == "pitm" }),
              let primary = ISOBMFF.primaryItemID(pitm, in: file),
              let iprp = children.first(where: { $0.type == "iprp" }) else { return nil }
        let propertyBoxes = ISOBMFF.children(of: iprp, in: file)
        guard let ipco = propertyBoxes.first(where: { $0.type == "ipco" }),
              let ipma = propertyBoxes.first(where: { $0.type == "ipma" }) else { return nil }
        let boxes = ISOBMFF.children(of: ipco, in: file)
        let associations = ISOBMFF.propertyAssociations(ipma, in: file)
        func properties(of item: UInt32, type: String) -> [ISOBMFF.Box] {
            (associations[item] ?? []).compactMap { index in
                index >= 1 && index <= boxes.count && boxes[index - 1].type == type ? boxes[index - 1] : nil
            }
        }
        guard let ispe = properties(of: primary, type: "ispe").first else { return nil }
        var cursor = ByteCursor(file, ispe.payload)
        guard cursor.fullBoxVersion() != nil, let width = cursor.u32(), let height = cursor.u32() else { return nil }
        let references = children.first { $0.type == "iref" }.flatMap { ISOBMFF.references($0, in: file) }?.entries ?? []
        let hasAlpha = references.contains { reference in
            reference.type == "auxl" && reference.to.contains(primary)
                && properties(of: reference.from, type: "auxC").contains { auxC in
                    ISOBMFF.auxiliaryType(auxC, in: file).map { $0.hasSuffix(":alpha") || $0.hasSuffix("auxid:1") } ?? false
                }
        }
        return ImageHeader(width: Int(width), height: Int(height), hasAlpha: hasAlpha)
    }
}
