/// The colour of a HEIF grid's tiles: libheif reads a grid's profile from its tiles when the grid item
/// has none, so `info` looks there too, straight from the boxes (the first tile with a `colr` property).
enum GridTileColour {
    case icc([UInt8])
    case nclx(NCLXColor)

    /// Whether the primary item is a grid.
    static func primaryIsGrid(_ structure: HeifStructure) -> Bool {
        guard let primary = structure.primaryItemID else { return false }
        return structure.items.first { $0.id == primary }?.type == "grid"
    }

    /// The colour of the first tile of the primary grid that has one, or nil.
    static func of(_ file: [UInt8], structure: HeifStructure) -> GridTileColour? {
        guard let primary = structure.primaryItemID, let meta = ISOBMFF.find(["meta"], in: file) else { return nil }
        let tiles = structure.references.filter { $0.type == "dimg" && $0.from == primary }.flatMap(\.to)
        let children = ISOBMFF.children(of: meta, in: file)
        guard !tiles.isEmpty, let iprp = children.first(where: { $0.type == "iprp" }) else { return nil }
        let boxes = ISOBMFF.children(of: iprp, in: file)
        guard let ipco = boxes.first(where: { $0.type == "ipco" }), let ipma = boxes.first(where: { $0.type == "ipma" })
        else { return nil }
        let properties = ISOBMFF.children(of: ipco, in: file)
        let associations = ISOBMFF.propertyAssociations(ipma, in: file)
        for tile in tiles {
            for index in associations[tile] ?? [] where index >= 1 && index <= properties.count {
                let box = properties[index - 1]
                guard box.type == "colr", let colour = colour(Array(file[box.payload])) else { continue }
                return colour
            }
        }
        return nil
    }

    /// A `colr` payload: the colour type, then an ICC profile or the nclx fields.
    private static func colour(_ payload: [UInt8]) -> GridTileColour? {
        guard payload.count >= 4 else { return nil }
        let type = String(decoding: payload[0..<4], as: UTF8.self)
        if type == "prof" || type == "rICC", payload.count > 4 { return .icc(Array(payload[4...])) }
        guard type == "nclx", payload.count >= 11 else { return nil }
        func u16(_ at: Int) -> Int { Int(payload[at]) << 8 | Int(payload[at + 1]) }
        return .nclx(NCLXColor(primaries: u16(4), transfer: u16(6), matrix: u16(8), fullRange: payload[10] & 0x80 != 0))
    }
}
