/// Y'CbCr 4:2:0 in any `YCbCrLayout` to interleaved RGB, each chroma sample covering its 2x2 block (as
/// libheif and libjpeg's plain upsampling do), for the stages that need RGB after all.
enum YCbCrToRGB {
    /// Per-sample contributions in 16.16 fixed point, so a pixel is five look-ups and four adds.
    private struct Tables {
        let luma, crToR, cbToG, crToG, cbToB: [Int32]

        init(_ layout: YCbCrLayout) {
            let (kr, kb) = layout.matrix.weights
            let kg = 1 - kr - kb
            let full = layout.range == .full
            func fixed(_ value: Double) -> Int32 { Int32((value * 65536).rounded()) }
            // Limited range spreads 16...235 (luma) and 16...240 (chroma) over 0...255.
            let lumaScale = full ? 1 : 255.0 / 219, chromaScale = full ? 1 : 255.0 / 224
            luma = (0..<256).map { fixed((Double($0) - (full ? 0 : 16)) * lumaScale) }
            func chroma(_ v: Int) -> Double { (Double(v) - 128) * chromaScale }
            crToR = (0..<256).map { fixed(2 * (1 - kr) * chroma($0)) }
            cbToB = (0..<256).map { fixed(2 * (1 - kb) * chroma($0)) }
            cbToG = (0..<256).map { fixed(-2 * (1 - kb) * kb / kg * chroma($0)) }
            crToG = (0..<256).map { fixed(-2 * (1 - kr) * kr / kg * chroma($0)) }
        }
    }

    private static let jfif = Tables(.jfif)

    static func convert(width: Int, height: Int, layout: YCbCrLayout, luma: SamplePlane, cb: SamplePlane, cr: SamplePlane) -> PixelBuffer {
        let t = layout.matrix == .bt601 && layout.range == .full ? jfif : Tables(layout)
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { out, count in
            @inline(__always) func clamp(_ v: Int32) -> UInt8 { UInt8(clamping: (v + 32768) >> 16) }
            for y in 0..<height {
                let yRow = luma.row(y), cbRow = cb.row(y / 2), crRow = cr.row(y / 2)
                let o = out.baseAddress! + y * width * 3   // width, height > 0: a picture is never empty
                for x in 0..<width {
                    let l = t.luma[Int(yRow[x])], u = Int(cbRow[x / 2]), v = Int(crRow[x / 2])
                    o[3 * x] = clamp(l + t.crToR[v])
                    o[3 * x + 1] = clamp(l + t.cbToG[u] + t.crToG[v])
                    o[3 * x + 2] = clamp(l + t.cbToB[u])
                }
            }
            count = width * height * 3
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
    }
}
