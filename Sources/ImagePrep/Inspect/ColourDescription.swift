/// How `imgprep info` describes colour: an ICC profile by name, nclx code points by what they mean.
extension NCLXColor {
    /// "BT.2020 / PQ": primaries and transfer by name (ITU-T H.273), or the code point when unnamed.
    public var name: String { "\(Self.primariesName(primaries)) / \(Self.transferName(transfer))" }

    /// "nclx: BT.2020 / PQ (matrix BT.2020 non-constant, full range; code points 9/16/9)".
    public var summary: String {
        "nclx: \(name) (matrix \(Self.matrixName(matrix)), \(fullRange ? "full" : "limited") range; code points \(primaries)/\(transfer)/\(matrix))"
    }

    static func primariesName(_ code: Int) -> String {
        switch code {
        case 1: "BT.709/sRGB"
        case 2: "unspecified primaries"
        case 4: "BT.470 M"
        case 5: "BT.601 625"
        case 6, 7: "BT.601 525"
        case 8: "generic film"
        case 9: "BT.2020"
        case 10: "XYZ"
        case 11: "DCI-P3"
        case 12: "Display P3"
        case 22: "EBU 3213"
        default: "primaries \(code)"
        }
    }

    static func transferName(_ code: Int) -> String {
        switch code {
        case 1, 6, 14, 15: "BT.709"
        case 2: "unspecified transfer"
        case 4: "gamma 2.2"
        case 5: "gamma 2.8"
        case 7: "SMPTE 240M"
        case 8: "linear"
        case 13: "sRGB"
        case 16: "PQ"
        case 17: "SMPTE 428"
        case 18: "HLG"
        default: "transfer \(code)"
        }
    }

    static func matrixName(_ code: Int) -> String {
        switch code {
        case 0: "identity (RGB)"
        case 1: "BT.709"
        case 2: "unspecified"
        case 5, 6: "BT.601"
        case 9: "BT.2020 non-constant"
        case 10: "BT.2020 constant"
        case 14: "ICtCp"
        default: "\(code)"
        }
    }
}

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
