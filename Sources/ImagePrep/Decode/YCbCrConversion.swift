import CImageCodecs

extension YCbCr420Image {
    /// The same picture in `target`'s matrix and range (its siting kept), converted plane to plane: an encoder
    /// that stores another Y'CbCr than the source's takes it this way, not through RGB. Self when they agree.
    func converted(to target: YCbCrLayout) -> YCbCr420Image {
        if layout.matrix == target.matrix, layout.range == target.range { return self }
        let matrix = YCbCrLayout.conversion(from: layout, to: target).map(Float.init)
        let storage = PlaneStorage(count: YCbCr420Image.packedCount(width: width, height: height))
        let chromaWidth = (width + 1) / 2, lumaCount = width * height, chromaCount = chromaWidth * ((height + 1) / 2)
        withExtendedLifetime(planes) {
            cic_ycbcr420_convert(luma.row(0), luma.stride, cb.row(0), cb.stride, cr.row(0), cr.stride,
                                 Int32(width), Int32(height), matrix, Float(layout.lumaOffset), Float(target.lumaOffset),
                                 storage.pointer, width, storage.pointer + lumaCount, chromaWidth,
                                 storage.pointer + lumaCount + chromaCount, chromaWidth)
        }
        var convertedLayout = target
        convertedLayout.siting = layout.siting
        return YCbCr420Image(packed: storage.pointer, width: width, height: height, layout: convertedLayout, owner: storage)
    }
}

extension YCbCrLayout {
    /// Black's luma sample.
    var lumaOffset: Double { range == .full ? 0 : 16 }

    /// What one unit of R'G'B' (0...1) spans in luma and in chroma samples.
    private var scales: (luma: Double, chroma: Double) { range == .full ? (255, 255) : (219, 224) }

    /// Normalised R'G'B' to Y' (0...1), Cb and Cr (-0.5...0.5), row-major.
    private var fromRGB: [Double] {
        let (kr, kb) = matrix.weights
        let kg: Double = 1 - kr - kb
        let cb: Double = 2 * (1 - kb), cr: Double = 2 * (1 - kr)
        return [kr, kg, kb, -kr / cb, -kg / cb, 0.5, 0.5, -kg / cr, -kb / cr]
    }

    /// The inverse of `fromRGB`.
    private var toRGB: [Double] {
        let (kr, kb) = matrix.weights
        let kg: Double = 1 - kr - kb
        let crToR: Double = 2 * (1 - kr), cbToB: Double = 2 * (1 - kb)
        let cbToG: Double = -kb * cbToB / kg, crToG: Double = -kr * crToR / kg
        return [1, 0, crToR, 1, cbToG, crToG, 1, cbToB, 0]
    }

    /// The 3x3 matrix taking `source`'s samples (less their offsets) to `target`'s, row-major.
    static func conversion(from source: YCbCrLayout, to target: YCbCrLayout) -> [Double] {
        func product(_ a: [Double], _ b: [Double]) -> [Double] {
            (0..<9).map { (i: Int) -> Double in
                let (row, column) = (i / 3, i % 3)
                var sum = 0.0
                for k in 0..<3 { sum += a[row * 3 + k] * b[k * 3 + column] }
                return sum
            }
        }
        func diagonal(_ luma: Double, _ chroma: Double) -> [Double] { [luma, 0, 0, 0, chroma, 0, 0, 0, chroma] }
        let (inLuma, inChroma) = source.scales, (outLuma, outChroma) = target.scales
        return product(diagonal(outLuma, outChroma),
                       product(target.fromRGB, product(source.toRGB, diagonal(1 / inLuma, 1 / inChroma))))
    }
}
