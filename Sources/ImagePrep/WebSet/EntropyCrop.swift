import Foundation

/// `--crop entropy`, as libvips' smartcrop does it: from the whole picture, repeatedly cut a slice off
/// whichever side has the duller edge (lower histogram entropy) until the window is left; at most about 8
/// steps on the axis that shrinks most.
enum EntropyCrop {
    /// The centre of the busiest window, as fractions of the picture (0...1 on each axis); nil when the
    /// picture is empty. `window` is the crop's size as a fraction of the picture's on each axis.
    static func centre(of analysis: PixelBuffer, window: (width: Double, height: Double)) -> (x: Double, y: Double)? {
        guard let picture = AttentionMap.premultipliedRGB(analysis) else { return nil }
        let (pw, ph) = (picture.width, picture.height)
        func cells(_ fraction: Double, _ side: Int) -> Int {
            fraction.isFinite ? min(max(Int((fraction * Double(side)).rounded()), 1), side) : side
        }
        let (targetWidth, targetHeight) = (cells(window.width, pw), cells(window.height, ph))
        var (left, top, width, height) = (0, 0, pw, ph)
        let step = max((width - targetWidth + 7) / 8, (height - targetHeight + 7) / 8, 1)
        while width > targetWidth || height > targetHeight {
            let sliceWidth = min(width - targetWidth, step)
            if sliceWidth > 0 {
                let leftScore = entropy(picture, x: left, y: top, width: sliceWidth, height: height)
                let rightScore = entropy(picture, x: left + width - sliceWidth, y: top, width: sliceWidth, height: height)
                width -= sliceWidth
                if leftScore < rightScore { left += sliceWidth }
            }
            let sliceHeight = min(height - targetHeight, step)
            if sliceHeight > 0 {
                let topScore = entropy(picture, x: left, y: top, width: width, height: sliceHeight)
                let bottomScore = entropy(picture, x: left, y: top + height - sliceHeight, width: width, height: sliceHeight)
                height -= sliceHeight
                if topScore < bottomScore { top += sliceHeight }
            }
        }
        return ((Double(left) + Double(width) / 2) / Double(pw), (Double(top) + Double(height) / 2) / Double(ph))
    }

    /// Shannon entropy of the region's R, G and B values pooled in one histogram (as libvips' hist_find
    /// and hist_entropy give for a 3-band picture).
    static func entropy(_ picture: PixelBuffer, x: Int, y: Int, width: Int, height: Int) -> Double {
        var histogram = [Int](repeating: 0, count: 3 * 256)
        for row in y..<(y + height) {
            var i = (row * picture.width + x) * 3
            for _ in 0..<width {
                histogram[Int(picture.pixels[i])] += 1
                histogram[256 + Int(picture.pixels[i + 1])] += 1
                histogram[512 + Int(picture.pixels[i + 2])] += 1
                i += 3
            }
        }
        let total = Double(3 * width * height)
        return histogram.reduce(0.0) { sum, count in
            guard count > 0 else { return sum }
            let p = Double(count) / total
            return sum - p * log2(p)
        }
    }
}
