/// The smaller ways PNG can store the same pixels: a palette for up to 256 colours (1, 2 or 4 bits a
/// pixel when few enough, alpha in tRNS), grey when R = G = B everywhere, no alpha channel when every
/// pixel is opaque. Every layout here decodes to exactly the pixels given; the encoder writes each
/// candidate and keeps the smallest file (as optipng and oxipng do).
struct PNGLayout: Equatable {
    /// PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
    var colorType: Int32
    var bitDepth: Int32
    var rowBytes: Int
    var rows: [UInt8]
    var palette: [UInt8] = []
    var paletteAlpha: [UInt8] = []
    /// Palettes compress best unfiltered; other layouts are tried with libpng's per-row adaptive choice
    /// and unfiltered (flat graphics often deflate smaller unfiltered), adaptive first.
    var filtersNone = false
    var filterChoices: [Bool] { filtersNone ? [true] : [false, true] }
}

enum PNGReduction {
    /// The layouts worth trying for `image`, smallest-looking first. A picture of more than 256 colours
    /// in colour with alpha somewhere gets its own layout only. `allowsGrey`: false when an RGB profile
    /// goes with the pixels (PNG forbids an RGB profile on grey data).
    static func candidates(for image: PixelBuffer, allowsGrey: Bool) -> [PNGLayout] {
        let facts = PixelFacts(image)
        var layouts: [PNGLayout] = []
        if let palette = facts.palette { layouts.append(paletted(image, palette: palette)) }
        if facts.isGrey && allowsGrey {
            layouts.append(grey(image, withAlpha: !facts.isOpaque))
        } else {
            layouts.append(colour(image, withAlpha: !facts.isOpaque))
        }
        return layouts
    }

    /// What the pixels hold, in one pass that stops counting colours past 256.
    struct PixelFacts {
        var isOpaque = true
        var isGrey = true
        /// The colours (RGBA packed as 0xRRGGBBAA) with how often each appears, or nil past 256.
        var palette: [(colour: UInt32, count: Int)]?

        init(_ image: PixelBuffer) {
            let channels = image.channels
            var counts: [UInt32: Int] = [:]
            counts.reserveCapacity(512)
            var tooMany = false
            image.pixels.withUnsafeBufferPointer { p in
                var last: UInt32 = 0, lastRun = 0
                for i in stride(from: 0, to: p.count, by: channels) {
                    let r = p[i], g = p[i + 1], b = p[i + 2], a = channels == 4 ? p[i + 3] : 255
                    if a != 255 { isOpaque = false }
                    if r != g || g != b { isGrey = false }
                    guard !tooMany else { continue }
                    let colour = UInt32(r) << 24 | UInt32(g) << 16 | UInt32(b) << 8 | UInt32(a)
                    if colour == last && lastRun > 0 { lastRun += 1; continue }
                    if lastRun > 0 { counts[last, default: 0] += lastRun }
                    last = colour
                    lastRun = 1
                    if counts.count > 256 { tooMany = true }
                }
                if lastRun > 0 { counts[last, default: 0] += lastRun }
            }
            if !tooMany && counts.count <= 256 {
                // Translucent entries first (tRNS then lists only them), then the commonest, then by value:
                // the same order for the same pixels, whatever the dictionary's.
                palette = counts.map { ($0.key, $0.value) }.sorted { a, b in
                    let aOpaque = a.colour & 0xFF == 0xFF, bOpaque = b.colour & 0xFF == 0xFF
                    if aOpaque != bOpaque { return !aOpaque }
                    if a.count != b.count { return a.count > b.count }
                    return a.colour < b.colour
                }
            }
        }
    }

    /// The smallest depth that indexes `count` entries.
    static func depth(forEntries count: Int) -> Int32 {
        count <= 2 ? 1 : count <= 4 ? 2 : count <= 16 ? 4 : 8
    }

    static func paletted(_ image: PixelBuffer, palette: [(colour: UInt32, count: Int)]) -> PNGLayout {
        let depth = depth(forEntries: palette.count)
        var index: [UInt32: UInt8] = [:]
        index.reserveCapacity(palette.count)
        for (i, entry) in palette.enumerated() { index[entry.colour] = UInt8(i) }
        let rowBytes = (image.width * Int(depth) + 7) / 8
        var rows = [UInt8](repeating: 0, count: rowBytes * image.height)
        let channels = image.channels, perByte = 8 / Int(depth)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let i = (y * image.width + x) * channels
                    let colour = UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | UInt32(channels == 4 ? p[i + 3] : 255)
                    let value = index[colour] ?? 0   // every colour is in the palette it was counted into
                    let shift = 8 - Int(depth) * (x % perByte + 1)
                    rows[y * rowBytes + x / perByte] |= value << shift
                }
            }
        }
        let translucent = palette.prefix { $0.colour & 0xFF != 0xFF }.count
        return PNGLayout(colorType: 3, bitDepth: depth, rowBytes: rowBytes, rows: rows,
                         palette: palette.flatMap { [UInt8($0.colour >> 24), UInt8($0.colour >> 16 & 0xFF), UInt8($0.colour >> 8 & 0xFF)] },
                         paletteAlpha: palette.prefix(translucent).map { UInt8($0.colour & 0xFF) }, filtersNone: true)
    }

    static func grey(_ image: PixelBuffer, withAlpha: Bool) -> PNGLayout {
        let channels = image.channels, out = withAlpha ? 2 : 1
        var rows = [UInt8](repeating: 0, count: image.width * image.height * out)
        image.pixels.withUnsafeBufferPointer { p in
            for pixel in 0..<image.width * image.height {
                rows[pixel * out] = p[pixel * channels]
                if withAlpha { rows[pixel * out + 1] = p[pixel * channels + 3] }
            }
        }
        return PNGLayout(colorType: withAlpha ? 4 : 0, bitDepth: 8, rowBytes: image.width * out, rows: rows)
    }

    static func colour(_ image: PixelBuffer, withAlpha: Bool) -> PNGLayout {
        if withAlpha == (image.channels == 4) {
            return PNGLayout(colorType: withAlpha ? 6 : 2, bitDepth: 8, rowBytes: image.width * image.channels, rows: image.pixels)
        }
        // RGBA whose alpha is 255 everywhere: the alpha channel goes.
        var rows = [UInt8](repeating: 0, count: image.width * image.height * 3)
        image.pixels.withUnsafeBufferPointer { p in
            for pixel in 0..<image.width * image.height {
                rows[pixel * 3] = p[pixel * 4]
                rows[pixel * 3 + 1] = p[pixel * 4 + 1]
                rows[pixel * 3 + 2] = p[pixel * 4 + 2]
            }
        }
        return PNGLayout(colorType: 2, bitDepth: 8, rowBytes: image.width * 3, rows: rows)
    }
}
