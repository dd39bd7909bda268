import Foundation

/// Brings HDR samples (PQ or HLG transfer) into SDR, so an ordinary viewer shows a sensible picture:
/// light relative to SDR reference white (203 cd/m², ITU-R BT.2408) is compressed above a knee by the
/// pixel's brightest channel, which keeps hues, then encoded with the sRGB curve. The primaries stay
/// the source's; the ICC profile written with the image names them.
struct HDRToneMapper {
    /// Code value → linear light, 1.0 = SDR white.
    private let linear: [Float]
    /// 0...1 in 4096 steps → 8-bit sRGB-encoded value.
    private let encode: [UInt8]

    /// nil for SDR transfers.
    init?(transfer: Int, bitDepth: Int) {
        let maxValue = (1 << bitDepth) - 1
        let referenceWhite = 203.0
        switch transfer {
        case 16:  // SMPTE ST 2084 (PQ): absolute, up to 10,000 cd/m²
            let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
            linear = (0...maxValue).map { code in
                let p = pow(Double(code) / Double(maxValue), 1 / m2)
                return Float(10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1) / referenceWhite)
            }
        case 18:  // ARIB STD-B67 (HLG), displayed on a 1,000 cd/m² screen (system gamma 1.2)
            let a = 0.17883277, b = 0.28466892, c = 0.55991073
            linear = (0...maxValue).map { code in
                let e = Double(code) / Double(maxValue)
                let scene = e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
                return Float(1000 * pow(scene, 1.2) / referenceWhite)
            }
        default:
            return nil
        }
        encode = (0..<4096).map { i in
            let v = Double(i) / 4095
            let srgb = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
            return UInt8((srgb * 255).rounded())
        }
    }

    /// Maps one pixel's three samples (code values) to 8-bit SDR.
    @inline(__always)
    func map(_ r: Int, _ g: Int, _ b: Int) -> (UInt8, UInt8, UInt8) {
        let lr = linear[min(r, linear.count - 1)], lg = linear[min(g, linear.count - 1)], lb = linear[min(b, linear.count - 1)]
        let peak = max(lr, lg, lb)
        // Identity below the knee; above it, an exponential shoulder that approaches 1 (no hard clip).
        let knee: Float = 0.75
        let scale: Float = peak <= knee ? 1 : (knee + (1 - knee) * (1 - exp(-(peak - knee) / (1 - knee)))) / peak
        func quantize(_ v: Float) -> UInt8 { encode[Int(min(max(v * scale, 0), 1) * 4095 + 0.5)] }
        return (quantize(lr), quantize(lg), quantize(lb))
    }
}
