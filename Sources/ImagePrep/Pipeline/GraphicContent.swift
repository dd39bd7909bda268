/// Whether a picture is a graphic (a screenshot, chart, diagram, icon or pixel art) rather than a photo,
/// from two facts about neighbouring pixels, measured in one pass (docs/graphics.md has the numbers):
/// - `flatShare`: the share of horizontally adjacent pixel pairs that are the same colour, alpha included.
///   Graphics are drawn in flat areas (0.67-0.97 on the graphics workload); photos, even of skies, have
///   sensor noise and JPEG ripple (0.03-0.67 on the corpus photos).
/// - `gentleShare`: the share of pairs that differ a little (by 1-4 in some channel and no more): the
///   grain and gradients of a photo (0.09-0.64), rare where edges are drawn (0-0.12, 0.31 in a shaded icon).
/// A picture with transparency is drawn, not photographed, once half of it is flat; one of at most 32x32
/// pixels is an icon (and a lossless try of so few pixels costs nothing).
public struct GraphicContent: Sendable, Equatable {
    public let flatShare: Double
    public let gentleShare: Double
    public let pixels: Int
    /// Some pixel is not opaque.
    public let hasTransparency: Bool

    public init(_ image: PixelBuffer) {
        let channels = image.channels
        var flat = 0, gentle = 0, pairs = 0
        var transparent = false
        image.pixels.withUnsafeBufferPointer { p in
            if channels == 4 { transparent = stride(from: 3, to: p.count, by: 4).contains { p[$0] != 255 } }
            guard image.width > 1 else { return }
            for row in 0..<image.height {
                var offset = row * image.width * channels
                for _ in 1..<image.width {
                    var largest: UInt8 = 0
                    for c in 0..<channels {
                        let a = p[offset + c], b = p[offset + channels + c]
                        largest = max(largest, a > b ? a - b : b - a)
                    }
                    if largest == 0 { flat += 1 } else if largest <= 4 { gentle += 1 }
                    offset += channels
                }
                pairs += image.width - 1
            }
        }
        flatShare = pairs == 0 ? 1 : Double(flat) / Double(pairs)
        gentleShare = pairs == 0 ? 0 : Double(gentle) / Double(pairs)
        hasTransparency = transparent
        pixels = image.width * image.height
    }

    public var isGraphic: Bool {
        (flatShare >= 0.6 && gentleShare <= 0.15) || (hasTransparency && flatShare >= 0.5) || pixels <= 32 * 32
    }
}
