import Foundation

/// Evan Wallace's ThumbHash (github.com/evanw/thumbhash), ported from its reference encoder: the picture's
/// luminance, two chroma channels and alpha as a few DCT terms, with the aspect ratio, in ~25 bytes.
enum ThumbHash {
    /// The reference refuses more than 100 px a side: more costs time and adds nothing.
    static let maxSide = 100

    /// The hash of `picture` (reduced here to fit `maxSide`), nil when it is empty.
    static func hash(of picture: PixelBuffer) -> [UInt8]? {
        guard let rgba = reduced(picture) else { return nil }
        return encode(width: rgba.width, height: rgba.height, rgba: rgba.pixels)
    }

    /// `picture` as RGBA within `maxSide` x `maxSide`, aspect kept; nil when it is empty or inconsistent.
    static func reduced(_ picture: PixelBuffer) -> PixelBuffer? {
        let (w, h, c) = (picture.width, picture.height, picture.channels)
        guard picture.isUsable else { return nil }
        let size = fittedSize(width: w, height: h, maxDimension: maxSide)
        let small = (size.width, size.height) == (w, h) ? picture : resized(picture, width: size.width, height: size.height)
        if c == 4 { return small }
        var rgba = [UInt8](repeating: 255, count: small.width * small.height * 4)
        for i in 0..<(small.width * small.height) {
            for k in 0..<3 { rgba[4 * i + k] = small.pixels[3 * i + k] }
        }
        return PixelBuffer(width: small.width, height: small.height, channels: 4, pixels: rgba)
    }

    /// The reference `rgbaToThumbHash`: `rgba` is `width` x `height` (1...100 each) unpremultiplied RGBA.
    static func encode(width w: Int, height h: Int, rgba: [UInt8]) -> [UInt8] {
        precondition((1...maxSide).contains(w) && (1...maxSide).contains(h) && rgba.count == w * h * 4, "ThumbHash takes 1...100 px a side")
        let count = w * h
        var (avgR, avgG, avgB, avgA) = (0.0, 0.0, 0.0, 0.0)
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            avgR += alpha / 255 * Double(rgba[4 * i])
            avgG += alpha / 255 * Double(rgba[4 * i + 1])
            avgB += alpha / 255 * Double(rgba[4 * i + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }
        let hasAlpha = avgA < Double(count)
        let lLimit = hasAlpha ? 5.0 : 7.0  // fewer luminance terms leave room for alpha
        let longest = Double(max(w, h))
        let lx = max(1, Int((lLimit * Double(w) / longest).rounded()))
        let ly = max(1, Int((lLimit * Double(h) / longest).rounded()))
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        // Composited over the average colour, so transparent pixels' hidden colours do not count.
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[4 * i])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        func encodeChannel(_ channel: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            var fx = [Double](repeating: 0, count: w)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    var f = 0.0
                    for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                    for y in 0..<h {
                        let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                    }
                    f /= Double(count)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
            return (dc, ac, scale)
        }
        let lc = encodeChannel(l, max(3, lx), max(3, ly))
        let pc = encodeChannel(p, 3, 3)
        let qc = encodeChannel(q, 3, 3)
        let ac = hasAlpha ? encodeChannel(a, 5, 5) : (dc: 1, ac: [], scale: 0)

        func round(_ v: Double) -> Int { Int(v.rounded()) }  // values here are >= 0: same as JS Math.round
        let isLandscape = w > h
        let header24 = round(63 * lc.dc) | round(31.5 + 31.5 * pc.dc) << 6 | round(31.5 + 31.5 * qc.dc) << 12
            | round(31 * lc.scale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | round(63 * pc.scale) << 3 | round(63 * qc.scale) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
                             UInt8(header16 & 255), UInt8(header16 >> 8 & 255)]
        if hasAlpha { hash.append(UInt8((round(15 * ac.dc) | round(15 * ac.scale) << 4) & 255)) }
        var nibbles = 0
        for f in lc.ac + pc.ac + qc.ac + ac.ac {
            let u = UInt8(round(15 * f) & 15)
            if nibbles % 2 == 0 { hash.append(u) } else { hash[hash.count - 1] |= u << 4 }
            nibbles += 1
        }
        return hash
    }
}
