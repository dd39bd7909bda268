/// Turns libheif's decoded 8-bit Y'CbCr planes into interleaved RGB in one pass, straight into our buffer.
/// Asking libheif for RGB instead costs an extra full-size RGB image (36 MB for 12 MP) that we would then
/// copy, and its converter is no faster. Chroma is upsampled by nearest neighbour, as libheif 1.15 does,
/// so the result matches heif-convert's.
struct YCbCrToRGB {
    /// Luma coefficients (H.273 matrix_coefficients); unknown codes fall back to BT.601 like libheif.
    static func coefficients(matrix: Int) -> (kr: Double, kb: Double) {
        switch matrix {
        case 1: (0.2126, 0.0722)            // BT.709
        case 4: (0.30, 0.11)                // FCC
        case 7: (0.212, 0.087)              // SMPTE 240M
        case 9, 10: (0.2627, 0.0593)        // BT.2020
        default: (0.299, 0.114)             // BT.601 (5, 6, 2 = unspecified, and the rest)
        }
    }

    // Per-sample contributions in 16.16 fixed point, so a pixel is five table look-ups and three adds.
    private var luma = [Int32](repeating: 0, count: 256)
    private var crToR = [Int32](repeating: 0, count: 256)
    private var cbToB = [Int32](repeating: 0, count: 256)
    private var cbToG = [Int32](repeating: 0, count: 256)
    private var crToG = [Int32](repeating: 0, count: 256)

    init(matrix: Int, fullRange: Bool) {
        let (kr, kb) = Self.coefficients(matrix: matrix)
        let kg = 1 - kr - kb
        for v in 0..<256 {
            let y = fullRange ? Double(v) : (Double(v) - 16) * 255 / 219
            let c = fullRange ? Double(v) - 128 : (Double(v) - 128) * 255 / 224
            luma[v] = Int32((y * 65536).rounded()) + 32768  // + 0.5: round when shifting down
            crToR[v] = Int32((2 * (1 - kr) * c * 65536).rounded())
            cbToB[v] = Int32((2 * (1 - kb) * c * 65536).rounded())
            cbToG[v] = Int32((-2 * kb * (1 - kb) / kg * c * 65536).rounded())
            crToG[v] = Int32((-2 * kr * (1 - kr) / kg * c * 65536).rounded())
        }
    }

    /// One plane: its pixels and the distance in bytes between rows.
    struct Plane {
        var base: UnsafePointer<UInt8>
        var stride: Int
    }

    /// `chroma` nil means monochrome. `xShift`/`yShift` are 1 where chroma is subsampled (4:2:0: both).
    func convert(width: Int, height: Int, luma y: Plane, chroma: (cb: Plane, cr: Plane)?, xShift: Int, yShift: Int) -> PixelBuffer {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        luma.withUnsafeBufferPointer { luma in
        crToR.withUnsafeBufferPointer { crToR in
        cbToB.withUnsafeBufferPointer { cbToB in
        cbToG.withUnsafeBufferPointer { cbToG in
        crToG.withUnsafeBufferPointer { crToG in
        out.withUnsafeMutableBufferPointer { dst in
            @inline(__always) func clamp(_ v: Int32) -> UInt8 { UInt8(clamping: v >> 16) }
            for row in 0..<height {
                let yRow = y.base + row * y.stride
                var o = row * width * 3
                guard let (cb, cr) = chroma else {
                    for x in 0..<width {
                        let value = clamp(luma[Int(yRow[x])])
                        dst[o] = value; dst[o + 1] = value; dst[o + 2] = value
                        o += 3
                    }
                    continue
                }
                let cbRow = cb.base + (row >> yShift) * cb.stride, crRow = cr.base + (row >> yShift) * cr.stride
                for x in 0..<width {
                    let l = luma[Int(yRow[x])]
                    let u = Int(cbRow[x >> xShift]), v = Int(crRow[x >> xShift])
                    dst[o] = clamp(l + crToR[v])
                    dst[o + 1] = clamp(l + cbToG[u] + crToG[v])
                    dst[o + 2] = clamp(l + cbToB[u])
                    o += 3
                }
            }
        }}}}}}
        return PixelBuffer(width: width, height: height, channels: 3, pixels: out)
    }
}
