/// Turns libheif's decoded Y'CbCr planes (8 to 16 bits per sample) into 8-bit interleaved RGB in one
/// pass, straight into our buffer. Asking libheif for RGB instead costs an extra full-size image (72 MB
/// for a 12 MP 10-bit photo) that we would then copy and scale down. Chroma is upsampled by nearest
/// neighbour, as libheif 1.15 does, so the result matches heif-convert's.
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

    // Per-sample contributions in 16.16 fixed point on the 8-bit output scale, so a pixel is five
    // table look-ups and three adds whatever the source depth.
    private let luma: [Int32]
    private let crToR: [Int32]
    private let cbToB: [Int32]
    private let cbToG: [Int32]
    private let crToG: [Int32]

    init(matrix: Int, fullRange: Bool, bitDepth: Int = 8) {
        let (kr, kb) = Self.coefficients(matrix: matrix)
        let kg = 1 - kr - kb
        let levels = 1 << bitDepth, scale = Double(1 << (bitDepth - 8)), half = Double(1 << (bitDepth - 1))
        func y(_ v: Int) -> Double { fullRange ? Double(v) * 255 / Double(levels - 1) : (Double(v) - 16 * scale) * 255 / (219 * scale) }
        func c(_ v: Int) -> Double { fullRange ? (Double(v) - half) * 255 / Double(levels - 1) : (Double(v) - half) * 255 / (224 * scale) }
        func fixed(_ value: Double) -> Int32 { Int32((value * 65536).rounded()) }
        luma = (0..<levels).map { fixed(y($0)) + 32768 }  // + 0.5: round when shifting down
        crToR = (0..<levels).map { fixed(2 * (1 - kr) * c($0)) }
        cbToB = (0..<levels).map { fixed(2 * (1 - kb) * c($0)) }
        cbToG = (0..<levels).map { fixed(-2 * kb * (1 - kb) / kg * c($0)) }
        crToG = (0..<levels).map { fixed(-2 * kr * (1 - kr) / kg * c($0)) }
    }

    /// One plane: its samples (UInt8, or UInt16 for deeper sources) and the distance in bytes between rows.
    struct Plane {
        var base: UnsafeRawPointer
        var stride: Int
    }

    /// `chroma` nil means monochrome. `xShift`/`yShift` are 1 where chroma is subsampled (4:2:0: both).
    func convert<Sample: FixedWidthInteger & UnsignedInteger>(
        _: Sample.Type, width: Int, height: Int, luma y: Plane, chroma: (cb: Plane, cr: Plane)?, xShift: Int, yShift: Int
    ) -> PixelBuffer {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let top = luma.count - 1  // samples above the declared depth are clamped, never out of bounds
        luma.withUnsafeBufferPointer { luma in
        crToR.withUnsafeBufferPointer { crToR in
        cbToB.withUnsafeBufferPointer { cbToB in
        cbToG.withUnsafeBufferPointer { cbToG in
        crToG.withUnsafeBufferPointer { crToG in
        out.withUnsafeMutableBufferPointer { dst in
            @inline(__always) func clamp(_ v: Int32) -> UInt8 { UInt8(clamping: v >> 16) }
            @inline(__always) func row(_ plane: Plane, _ index: Int) -> UnsafePointer<Sample> {
                (plane.base + index * plane.stride).assumingMemoryBound(to: Sample.self)
            }
            for r in 0..<height {
                let yRow = row(y, r)
                var o = r * width * 3
                guard let (cb, cr) = chroma else {
                    for x in 0..<width {
                        let value = clamp(luma[min(Int(yRow[x]), top)])
                        dst[o] = value; dst[o + 1] = value; dst[o + 2] = value
                        o += 3
                    }
                    continue
                }
                let cbRow = row(cb, r >> yShift), crRow = row(cr, r >> yShift)
                for x in 0..<width {
                    let l = luma[min(Int(yRow[x]), top)]
                    let u = min(Int(cbRow[x >> xShift]), top), v = min(Int(crRow[x >> xShift]), top)
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
