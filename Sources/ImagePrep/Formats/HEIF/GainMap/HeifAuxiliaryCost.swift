/// How many pixels libheif decodes for a HEIF auxiliary image, read from the boxes before anything is
/// decoded. A `grid` item decodes every tile it references (one tile referenced 1600 times is 1600
/// decodes) and comes out at the size its grid header says, whatever its `ispe` claims; so the cost
/// is the sum of its tiles' sizes, and a grid of grids or another derived item is not decoded at all.
enum HeifAuxiliaryCost {
    /// The pixels decoding the auxiliary image of `auxiliaryType` takes; nil when the boxes do not
    /// say (no such item, a tile without `ispe`, a derived item other than a grid of coded tiles).
    static func decodedPixels(_ file: [UInt8], auxiliaryType: String) -> Int? {
        guard let meta = ISOBMFF.find(["meta"], in: file) else { return nil }
        let children = ISOBMFF.children(of: meta, in: file)
        guard let iinf = children.first(where: { $0.type == "iinf" }),
              let iprp = children.first(where: { $0.type == "iprp" }) else { return nil }
        let items = Dictionary(ISOBMFF.items(iinf, in: file).map { ($0.id, $0.type) }, uniquingKeysWith: { first, _ in first })
        let references = children.first(where: { $0.type == "iref" }).flatMap { ISOBMFF.references($0, in: file) }?.entries ?? []
        let boxes = ISOBMFF.children(of: iprp, in: file)
        guard let ipco = boxes.first(where: { $0.type == "ipco" }), let ipma = boxes.first(where: { $0.type == "ipma" }) else { return nil }
        let properties = ISOBMFF.children(of: ipco, in: file)
        let associations = ISOBMFF.propertyAssociations(ipma, in: file)
        func property(_ index: Int) -> ISOBMFF.Box? { index >= 1 && index <= properties.count ? properties[index - 1] : nil }
        func ispePixels(_ id: UInt32) -> Int? {
            guard let ispe = (associations[id] ?? []).compactMap(property).first(where: { $0.type == "ispe" }) else { return nil }
            var cursor = ByteCursor(file, ispe.payload)
            guard cursor.fullBoxVersion() != nil, let width = cursor.u32(), let height = cursor.u32() else { return nil }
            let (pixels, overflow) = Int(width).multipliedReportingOverflow(by: Int(height))
            return overflow ? nil : pixels
        }
        guard let id = associations.keys.sorted().first(where: { id in
            (associations[id] ?? []).compactMap(property).contains { $0.type == "auxC" && ISOBMFF.auxiliaryType($0, in: file) == auxiliaryType }
        }) else { return nil }
        switch items[id] {
        case "grid":
            let tiles = references.filter { $0.type == "dimg" && $0.from == id }.flatMap(\.to)
            guard !tiles.isEmpty else { return nil }
            var total = 0
            for tile in tiles {
                guard let type = items[tile], !["grid", "iden", "iovl"].contains(type), let pixels = ispePixels(tile) else { return nil }
                let (sum, overflow) = total.addingReportingOverflow(pixels)
                guard !overflow else { return nil }
                total = sum
            }
            return total
        case "iden", "iovl", nil:
            return nil
        default:
            return ispePixels(id)
        }
    }
}
