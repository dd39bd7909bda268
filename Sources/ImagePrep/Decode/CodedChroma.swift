/// How the primary image's colour samples are coded (from its `hvcC` or `av1C` property, or its first
/// grid tile's), so the decoder can ask libheif for exactly that layout and nothing gets resampled.
/// libheif 1.15 has no call that says it, and with an "undefined" request it hands back planar RGB.
enum CodedChroma: Equatable {
    case monochrome, yuv420, yuv422, yuv444

    init?(file: [UInt8]) {
        guard let pitm = ISOBMFF.find(["meta", "pitm"], in: file), let primary = ISOBMFF.primaryItemID(pitm, in: file),
              let iinf = ISOBMFF.find(["meta", "iinf"], in: file), let ipco = ISOBMFF.find(["meta", "iprp", "ipco"], in: file),
              let ipma = ISOBMFF.find(["meta", "iprp", "ipma"], in: file)
        else { return nil }
        let items = ISOBMFF.items(iinf, in: file)
        var coded = primary
        if items.first(where: { $0.id == primary })?.type == "grid" {
            // All tiles of a grid share one layout; the first tile's says it.
            guard let iref = ISOBMFF.find(["meta", "iref"], in: file),
                  let tile = ISOBMFF.references(iref, in: file)?.entries.first(where: { $0.type == "dimg" && $0.from == primary })?.to.first
            else { return nil }
            coded = tile
        }
        let properties = ISOBMFF.children(of: ipco, in: file)
        let associated = ISOBMFF.propertyAssociations(ipma, in: file)[coded] ?? []
        for index in associated where index >= 1 && index <= properties.count {
            let box = properties[index - 1]
            let payload = Array(file[box.payload])
            switch box.type {
            case "hvcC" where payload.count > 16:
                // HEVCDecoderConfigurationRecord: chroma_format_idc is the low two bits of byte 16.
                self = [.monochrome, .yuv420, .yuv422, .yuv444][Int(payload[16] & 0x03)]
                return
            case "av1C" where payload.count > 2:
                // AV1CodecConfigurationRecord byte 2: ... monochrome, subsampling_x, subsampling_y, position(2).
                let flags = payload[2]
                if flags & 0x10 != 0 { self = .monochrome; return }
                switch (flags & 0x08 != 0, flags & 0x04 != 0) {
                case (true, true): self = .yuv420
                case (true, false): self = .yuv422
                default: self = .yuv444
                }
                return
            default:
                continue
            }
        }
        return nil
    }
}
