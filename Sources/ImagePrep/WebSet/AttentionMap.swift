import Foundation

/// `--crop attention`, as libvips' smartcrop does it: the picture squeezed to 32x32, each cell scored by
/// its edges (Laplacian of luminance), skin tone and saturation (CIELAB a*), the scores blurred over an
/// area the size of the crop, and the highest cell taken as the centre of interest.
enum AttentionMap {
    /// The map's side: how precisely the crop can be placed (libvips' own).
    static let side = 32
    /// smartcrop.js' skin colour, as a unit XYZ direction.
    static let skin = (x: 0.78, y: 0.57, z: 0.44)
    /// D65 white, XYZ scaled so that Y is 100 (libvips' XYZ).
    static let white = (x: 95.047, y: 100.0, z: 108.883)

    /// The cell (0..<side on each axis) where interest peaks; nil when the picture is empty or its map
    /// is flat (libvips would then take the top-left corner; the centre is the better guess).
    /// `window` is the crop's size as a fraction of the picture's on each axis (it sets the blur).
    static func peak(of analysis: PixelBuffer, window: (width: Double, height: Double)) -> (x: Int, y: Int)? {
        guard let rgb = premultipliedRGB(analysis) else { return nil }
        let small = resized(rgb, width: side, height: side)
        let n = side * side
        var luminance = [Double](repeating: 0, count: n), score = [Double](repeating: 0, count: n)
        let linear = (0..<256).map { srgbToLinear(Double($0) / 255) }
        for i in 0..<n {
            let (r, g, b) = (linear[Int(small.pixels[3 * i])], linear[Int(small.pixels[3 * i + 1])], linear[Int(small.pixels[3 * i + 2])])
            let x = 100 * (0.4124 * r + 0.3576 * g + 0.1805 * b)
            let y = 100 * (0.2126 * r + 0.7152 * g + 0.0722 * b)
            let z = 100 * (0.0193 * r + 0.1192 * g + 0.9505 * b)
            luminance[i] = y
            // Dark cells score nothing for skin and saturation (libvips' Y > 5).
            guard y > 5 else { continue }
            let magnitude = (x * x + y * y + z * z).squareRoot()
            let (dx, dy, dz) = (x / magnitude - skin.x, y / magnitude - skin.y, z / magnitude - skin.z)
            let skinScore = 100 - 100 * (dx * dx + dy * dy + dz * dz).squareRoot()
            let a = 500 * (labF(x / white.x) - labF(y / white.y))
            score[i] = skinScore + a
        }
        func at(_ x: Int, _ y: Int) -> Double {
            luminance[min(max(y, 0), side - 1) * side + min(max(x, 0), side - 1)]
        }
        for y in 0..<side {
            for x in 0..<side {
                let laplacian = 4 * at(x, y) - at(x - 1, y) - at(x + 1, y) - at(x, y - 1) - at(x, y + 1)
                score[y * side + x] += abs(5 * laplacian)
            }
        }
        let cells = Double(side)
        let sigma = max(((window.width * cells) * (window.width * cells) + (window.height * cells) * (window.height * cells)).squareRoot() / 10, 1)
        let blurred = gaussianBlur(score, side: side, sigma: sigma.isFinite ? sigma : 1)
        guard let low = blurred.min(), let high = blurred.max(), high - low > 1e-9 else { return nil }
        // The first maximum in reading order.
        guard let index = blurred.firstIndex(of: high) else { return nil }
        return (index % side, index / side)
    }

    /// 3-channel copy of the picture with alpha multiplied in, so what is transparent does not count;
    /// nil when it is empty or its pixel count does not match its size.
    static func premultipliedRGB(_ picture: PixelBuffer) -> PixelBuffer? {
        let (w, h, c) = (picture.width, picture.height, picture.channels)
        guard picture.isUsable else { return nil }
        if c == 3 { return picture }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) {
            let alpha = Int(picture.pixels[4 * i + 3])
            for k in 0..<3 { out[3 * i + k] = UInt8((Int(picture.pixels[4 * i + k]) * alpha + 127) / 255) }
        }
        return PixelBuffer(width: w, height: h, channels: 3, pixels: out)
    }

    static func srgbToLinear(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    static func labF(_ t: Double) -> Double {
        t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16) / 116
    }

    /// Separable Gaussian with libvips' mask (cut where it falls below 0.2 of its peak), edges repeated.
    static func gaussianBlur(_ values: [Double], side: Int, sigma: Double) -> [Double] {
        var radius = 0
        while radius < 8 * side, exp(-Double((radius + 1) * (radius + 1)) / (2 * sigma * sigma)) >= 0.2 { radius += 1 }
        let kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        func pass(_ input: [Double], horizontal: Bool) -> [Double] {
            var output = [Double](repeating: 0, count: input.count)
            for y in 0..<side {
                for x in 0..<side {
                    var sum = 0.0
                    for (k, weight) in kernel.enumerated() {
                        let offset = k - radius
                        let (sx, sy) = horizontal ? (min(max(x + offset, 0), side - 1), y) : (x, min(max(y + offset, 0), side - 1))
                        sum += weight * input[sy * side + sx]
                    }
                    output[y * side + x] = sum / total
                }
            }
            return output
        }
        return pass(pass(values, horizontal: true), horizontal: false)
    }
}
