/// The colour a page can paint before anything loads.
public enum DominantColor {
    /// At most this many pixels are looked at (evenly spread): the answer does not need more.
    static let maxSamples = 1 << 16

    /// `#rrggbb` (lower case) of `picture` (upright, sRGB, any size): the mean colour of the most
    /// populated cell of a 16x16x16 RGB grid (sharp's `dominant` picks the same cell), each pixel
    /// weighted by its alpha. `#000000` when the picture is empty or wholly transparent.
    public static func hex(of picture: PixelBuffer) -> String {
        let (w, h, c) = (picture.width, picture.height, picture.channels)
        guard picture.isUsable else { return "#000000" }
        let count = w * h
        let stride = max(1, count / maxSamples)
        var weights = [Int](repeating: 0, count: 4096)
        var sums = [Int](repeating: 0, count: 4096 * 3)
        var i = 0
        while i < count {
            let at = i * c
            let alpha = c == 4 ? Int(picture.pixels[at + 3]) : 255
            let (r, g, b) = (Int(picture.pixels[at]), Int(picture.pixels[at + 1]), Int(picture.pixels[at + 2]))
            let cell = (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
            weights[cell] += alpha
            sums[3 * cell] += alpha * r
            sums[3 * cell + 1] += alpha * g
            sums[3 * cell + 2] += alpha * b
            i += stride
        }
        // The first of equal cells, so the answer never depends on anything but the pixels.
        guard let top = weights.indices.max(by: { weights[$0] < weights[$1] || (weights[$0] == weights[$1] && $0 > $1) }),
              weights[top] > 0 else { return "#000000" }
        let channels = (0..<3).map { (sums[3 * top + $0] + weights[top] / 2) / weights[top] }
        return "#" + channels.map { value in
            let digits = String(value, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}
