/// A picture's stored size read from its headers in Swift, without any codec library: the batch parent
/// uses it to schedule files by memory, and no C decoder runs in the parent process.
/// Bounds-checked throughout: a header it cannot read gives nil, never a trap.
public enum HeaderProbe {
    public static func header(of file: [UInt8], format: SniffedFormat) -> ImageHeader? {
        format.reader.probeHeader(file)
    }

    /// The logical screen and the number of frames (a walk over the records, skipping the image data).
    /// Alpha when the file is animated or any frame has a transparent colour.
    static func gif(_ file: [UInt8]) -> ImageHeader? {
        guard let gif = GIFStructure(file, maxImages: Animation.maxFrames + 1), !gif.images.isEmpty else { return nil }
        return gif.header
    }

    /// The first chunk after `RIFF size WEBP`: VP8X gives the canvas (24-bit sides minus one, alpha flag
    /// 0x10), VP8L its 14-bit sides minus one and an alpha bit, VP8 the key frame's 14-bit sides.
    static func webp(_ file: [UInt8]) -> ImageHeader? {
        guard file.count >= 30 else { return nil }
        func le(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(file[at + $1]) << (8 * $1) } }
        switch String(decoding: file[12..<16], as: UTF8.self) {
        case "VP8X":
            let animated = file[20] & 0x02 != 0
            return ImageHeader(width: le(24, 3) + 1, height: le(27, 3) + 1, hasAlpha: animated || file[20] & 0x10 != 0,
                               frames: animated ? max(webpFrameCount(file), 1) : 1)
        case "VP8L":
            guard file[20] == 0x2F else { return nil }
            let bits = le(21, 4)
            return ImageHeader(width: bits & 0x3FFF + 1, height: (bits >> 14) & 0x3FFF + 1, hasAlpha: (bits >> 28) & 1 == 1)
        case "VP8 ":
            guard file[23] == 0x9D, file[24] == 0x01, file[25] == 0x2A else { return nil }
            return ImageHeader(width: le(26, 2) & 0x3FFF, height: le(28, 2) & 0x3FFF)
        default:
            return nil
        }
    }

    /// ANMF chunks after the VP8X chunk, each skipped by its declared size (counting stops past the frame limit).
    static func webpFrameCount(_ file: [UInt8]) -> Int {
        var offset = 30, frames = 0
        while offset + 8 <= file.count, frames <= Animation.maxFrames {
            let size = (0..<4).reduce(0) { $0 | Int(file[offset + 4 + $1]) << (8 * $1) }
            if file[offset..<offset + 4].elementsEqual("ANMF".utf8) { frames += 1 }
            offset += 8 + size + size % 2
        }
        return frames
    }

    /// IHDR must come first: signature (8), length (4), "IHDR" (4), width (4), height (4), bit depth (1),
    /// colour type (1: 4 and 6 carry alpha).
    static func png(_ file: [UInt8]) -> ImageHeader? {
        var cursor = ByteCursor(file, 12..<26)
        guard cursor.fourCC() == "IHDR", let width = cursor.u32(), let height = cursor.u32(),
              cursor.u8() != nil, let colourType = cursor.u8() else { return nil }
        return ImageHeader(width: Int(width), height: Int(height), hasAlpha: colourType == 4 || colourType == 6)
    }

    /// The first start-of-frame segment: precision (1), height (2), width (2).
    static func jpeg(_ file: [UInt8]) -> ImageHeader? {
        var found: ImageHeader?
        _ = JPEGMarkers.forEachSegment(in: file) { marker, payload in
            // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            guard found == nil, (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) else { return }
            var cursor = ByteCursor(payload, 0..<payload.count)
            guard cursor.u8() != nil, let height = cursor.u16(), let width = cursor.u16() else { return }
            found = ImageHeader(width: Int(width), height: Int(height))
        }
        return found
    }

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
