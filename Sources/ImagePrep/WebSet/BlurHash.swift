import Foundation

/// Wolt's BlurHash (github.com/woltapp/blurhash), as its reference encoders make it: DCT terms of the
/// linear-light picture, base-83 text. 4x3 components, from the picture resampled to 32 px on its long
/// edge and at least `minimumSide` on the other (the reference advises a small input: the terms are the
/// same and the work is not; BlurHash keeps no aspect, so stretching a strip loses nothing).
enum BlurHash {
    static let components = (x: 4, y: 3)
    static let workingSide = 32
    /// The reference's basis has no half-pixel offset, so on a side of 1 or 2 pixels every term is as
    /// large as the picture's mean and a flat colour decodes as stripes: each side gets at least this.
    static let minimumSide = 8

    /// The hash of `picture`, nil when it is empty. Alpha is composited over the picture's average colour
    /// (BlurHash has no alpha).
    static func hash(of picture: PixelBuffer) -> String? {
        guard let rgb = reduced(picture) else { return nil }
        return encode(width: rgb.width, height: rgb.height, rgb: rgb.pixels)
    }

    /// `picture` as opaque RGB, `workingSide` px on its long edge and at least `minimumSide` on the other;
    /// nil when it is empty or inconsistent.
    static func reduced(_ picture: PixelBuffer) -> PixelBuffer? {
        let (w, h, c) = (picture.width, picture.height, picture.channels)
        guard picture.isUsable else { return nil }
        let long = max(w, h)
        let size = (width: max(minimumSide, BoxGeometry.scale(w, workingSide, long)),
                    height: max(minimumSide, BoxGeometry.scale(h, workingSide, long)))
        let small = (size.width, size.height) == (w, h) ? picture : resized(picture, width: size.width, height: size.height)
        guard c == 4 else { return small }
        let n = small.width * small.height
        var average = [0.0, 0.0, 0.0], weight = 0.0
        for i in 0..<n {
            let alpha = Double(small.pixels[4 * i + 3]) / 255
            for k in 0..<3 { average[k] += alpha * Double(small.pixels[4 * i + k]) }
            weight += alpha
        }
        if weight > 0 { average = average.map { $0 / weight } }
        var rgb = [UInt8](repeating: 0, count: n * 3)
        for i in 0..<n {
            let alpha = Double(small.pixels[4 * i + 3]) / 255
            for k in 0..<3 {
                rgb[3 * i + k] = UInt8(min(max((alpha * Double(small.pixels[4 * i + k]) + (1 - alpha) * average[k]).rounded(), 0), 255))
            }
        }
        return PixelBuffer(width: small.width, height: small.height, channels: 3, pixels: rgb)
    }

    /// The reference `encode` for sRGB `rgb`, `width` x `height` (both >= 1).
    static func encode(width w: Int, height h: Int, rgb: [UInt8]) -> String {
        precondition(w >= 1 && h >= 1 && rgb.count == w * h * 3, "BlurHash takes a non-empty RGB picture")
        let linear = (0..<256).map { AttentionMap.srgbToLinear(Double($0) / 255) }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<components.y {
            for i in 0..<components.x {
                let normalisation = i == 0 && j == 0 ? 1.0 : 2.0
                var (r, g, b) = (0.0, 0.0, 0.0)
                for y in 0..<h {
                    let basisY = cos(Double.pi * Double(j) * Double(y) / Double(h))
                    for x in 0..<w {
                        let basis = normalisation * cos(Double.pi * Double(i) * Double(x) / Double(w)) * basisY
                        let at = 3 * (y * w + x)
                        r += basis * linear[Int(rgb[at])]
                        g += basis * linear[Int(rgb[at + 1])]
                        b += basis * linear[Int(rgb[at + 2])]
                    }
                }
                let scale = 1 / Double(w * h)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        let dc = factors[0], ac = factors.dropFirst()
        var text = base83((components.x - 1) + (components.y - 1) * 9, length: 1)
        let actualMaximum = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
        let quantisedMaximum = Int(max(0, min(82, (actualMaximum * 166 - 0.5).rounded(.down))))
        let maximum = Double(quantisedMaximum + 1) / 166
        text += base83(quantisedMaximum, length: 1)
        text += base83(linearToSRGB(dc.0) << 16 | linearToSRGB(dc.1) << 8 | linearToSRGB(dc.2), length: 4)
        for factor in ac {
            func quantise(_ v: Double) -> Int {
                let signed = (v / maximum < 0 ? -1.0 : 1.0) * abs(v / maximum).squareRoot()
                return Int(max(0, min(18, (signed * 9 + 9.5).rounded(.down))))
            }
            text += base83(quantise(factor.0) * 19 * 19 + quantise(factor.1) * 19 + quantise(factor.2), length: 2)
        }
        return text
    }

    static func linearToSRGB(_ value: Double) -> Int {
        let v = min(max(value, 0), 1)
        return v <= 0.0031308 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }

    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    static func base83(_ value: Int, length: Int) -> String {
        var digits: [Character] = []
        var rest = value
        for _ in 0..<length {
            digits.append(alphabet[rest % 83])
            rest /= 83
        }
        return String(digits.reversed())
    }
}
