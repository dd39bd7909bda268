/// The logical screen as browsers (and gif2webp) composite a GIF on it: transparent at first; each frame
/// drawn at its offset, clipped to the screen, its transparent colour letting the canvas show through;
/// then disposed of as its Graphics Control Extension says: kept, cleared to transparent, or put back
/// as it was before the frame.
struct GIFCanvas {
    let width: Int
    let height: Int
    /// RGBA, straight alpha.
    private(set) var pixels: [UInt8]
    /// What the frame being drawn covered before (for disposal `previous`).
    private var saved: [UInt8] = []

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// The part of `image` that lies on the screen (empty when it lies wholly outside).
    func clip(_ image: GIFStructure.Image) -> (x: Range<Int>, y: Range<Int>) {
        let x0 = min(image.left, width), y0 = min(image.top, height)
        return (x0..<min(image.left + image.width, width), y0..<min(image.top + image.height, height))
    }

    /// Draws one frame. `readRow` fills the image's next stored row of palette indices (interlaced
    /// images store every 8th row, then the 4th, 2nd and odd rows); indices past the palette draw black.
    mutating func draw(_ image: GIFStructure.Image, palette: [UInt8], readRow: (inout [UInt8]) throws -> Void) rethrows {
        let area = clip(image)
        if image.disposal == .previous { saved = copy(area) }
        var row = [UInt8](repeating: 0, count: image.width)
        let table = Self.rgbaTable(palette, transparentIndex: image.transparentIndex)
        for stored in 0..<image.height {
            try readRow(&row)
            let y = image.top + (image.interlaced ? Self.interlacedRow(stored, height: image.height) : stored)
            guard area.y.contains(y) else { continue }
            pixels.withUnsafeMutableBytes { canvas in
                for x in area.x {
                    let entry = table[Int(row[x - image.left])]
                    if let entry { canvas.storeBytes(of: entry, toByteOffset: (y * width + x) * 4, as: UInt32.self) }
                }
            }
        }
    }

    /// Each of the 256 indices as the 4 bytes it draws (R, G, B, 255 in memory order), nil for the
    /// transparent index; indices past the palette draw opaque black. Built once per frame.
    static func rgbaTable(_ palette: [UInt8], transparentIndex: Int?) -> [UInt32?] {
        (0..<256).map { index in
            if index == transparentIndex { return nil }
            guard index * 3 + 2 < palette.count else { return UInt32(255) << 24 }
            let (r, g, b) = (UInt32(palette[index * 3]), UInt32(palette[index * 3 + 1]), UInt32(palette[index * 3 + 2]))
            return (r | g << 8 | b << 16 | 255 << 24).littleEndian
        }
    }

    /// Leaves the canvas ready for the next frame, as `image`'s disposal method says.
    mutating func dispose(_ image: GIFStructure.Image) {
        let area = clip(image)
        switch image.disposal {
        case .keep: return
        case .background: paste(nil, area)
        case .previous: paste(saved, area)
        }
    }

    /// The stored row `index` of an interlaced image of `height` rows is picture row…
    static func interlacedRow(_ index: Int, height: Int) -> Int {
        var index = index
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            let count = height > start ? (height - start + step - 1) / step : 0
            if index < count { return start + index * step }
            index -= count
        }
        return height - 1   // unreachable for index < height
    }

    private func copy(_ area: (x: Range<Int>, y: Range<Int>)) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(area.x.count * area.y.count * 4)
        for y in area.y { out += pixels[(y * width + area.x.lowerBound) * 4..<(y * width + area.x.upperBound) * 4] }
        return out
    }

    /// Puts `saved` back over `area`, or clears it to transparent when nil.
    private mutating func paste(_ saved: [UInt8]?, _ area: (x: Range<Int>, y: Range<Int>)) {
        let rowBytes = area.x.count * 4
        for (i, y) in area.y.enumerated() {
            let start = (y * width + area.x.lowerBound) * 4
            if let saved {
                pixels.replaceSubrange(start..<start + rowBytes, with: saved[i * rowBytes..<(i + 1) * rowBytes])
            } else {
                pixels.replaceSubrange(start..<start + rowBytes, with: repeatElement(0, count: rowBytes))
            }
        }
    }
}
