/// JFIF Y'CbCr 4:2:0 (BT.601, full range) to interleaved RGB, each chroma sample covering its 2x2 block.
/// For the rare stage that needs a JPEG's own planes as RGB after all.
enum YCbCrToRGB {
    // Per-sample contributions in 16.16 fixed point, so a pixel is four look-ups and three adds.
    private static func fixed(_ value: Double) -> Int32 { Int32((value * 65536).rounded()) }
    private static let crToR: [Int32] = (0..<256).map { fixed(1.402 * Double($0 - 128)) }
    private static let cbToB: [Int32] = (0..<256).map { fixed(1.772 * Double($0 - 128)) }
    private static let cbToG: [Int32] = (0..<256).map { fixed(-0.344136 * Double($0 - 128)) }
    private static let crToG: [Int32] = (0..<256).map { fixed(-0.714136 * Double($0 - 128)) }

    static func convert(width: Int, height: Int, luma: SamplePlane, cb: SamplePlane, cr: SamplePlane) -> PixelBuffer {
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { out, count in
            @inline(__always) func clamp(_ v: Int32) -> UInt8 { UInt8(clamping: (v + 32768) >> 16) }
            for y in 0..<height {
                let yRow = luma.row(y), cbRow = cb.row(y / 2), crRow = cr.row(y / 2)
                let o = out.baseAddress! + y * width * 3
                for x in 0..<width {
                    let l = Int32(yRow[x]) << 16, u = Int(cbRow[x / 2]), v = Int(crRow[x / 2])
                    o[3 * x] = clamp(l + crToR[v])
                    o[3 * x + 1] = clamp(l + cbToG[u] + crToG[v])
                    o[3 * x + 2] = clamp(l + cbToB[u])
                }
            }
            count = width * height * 3
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
    }
}
