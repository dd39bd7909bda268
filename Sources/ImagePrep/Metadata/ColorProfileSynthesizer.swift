import Foundation

/// A colour description given by code points (ITU-T H.273), as HEIF/AVIF `colr` boxes of type nclx carry it.
public struct NCLXColor: Sendable, Equatable, Codable {
    public var primaries: Int
    public var transfer: Int
    public var matrix: Int
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }
}

/// JPEG and PNG cannot say "nclx", but an ICC profile can say the same thing for SDR transfers, so
/// ordinary viewers show the colours right. We write a small ICC v2 matrix/TRC display profile.
public enum ColorProfileSynthesizer {
    public static func profile(for color: NCLXColor) -> (icc: [UInt8]?, warning: String?) {
        guard let primaries = primaries(color.primaries) else {
            return (nil, "colour primaries \(color.primaries) are not supported: no colour profile written")
        }
        let curve: ToneCurve
        switch color.transfer {
        case 2, 13: curve = .sRGB  // 2 = unspecified: assume sRGB, what viewers assume anyway
        case 1, 6, 14, 15: curve = .bt709
        case 4: curve = .gamma(2.2)
        case 5: curve = .gamma(2.8)
        case 8: curve = .gamma(1.0)
        case 16, 18: curve = .sRGB  // PQ/HLG pixels arrive tone-mapped to SDR with the sRGB curve (HDRToneMapper)
        default:
            return (nil, "transfer characteristics \(color.transfer) are not supported: no colour profile written")
        }
        return (make(primaries, curve), nil)
    }

    struct Primaries {
        var name: String
        var red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double)
    }

    static let d65 = (0.3127, 0.3290)

    static func primaries(_ code: Int) -> Primaries? {
        switch code {
        case 1, 2: Primaries(name: "sRGB (nclx 1)", red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), white: d65)
        case 9: Primaries(name: "BT.2020 (nclx 9)", red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046), white: d65)
        case 11: Primaries(name: "DCI-P3 (nclx 11)", red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.314, 0.351))
        case 12: Primaries(name: "Display P3 (nclx 12)", red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: d65)
        case 5: Primaries(name: "BT.601 625 (nclx 5)", red: (0.64, 0.33), green: (0.29, 0.60), blue: (0.15, 0.06), white: d65)
        case 6, 7: Primaries(name: "BT.601 525 (nclx 6)", red: (0.630, 0.340), green: (0.310, 0.595), blue: (0.155, 0.070), white: d65)
        default: nil
        }
    }

    enum ToneCurve {
        case sRGB, bt709, gamma(Double)

        /// Display value (0...1) to linear light.
        func linear(_ v: Double) -> Double {
            switch self {
            case .sRGB: v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            case .bt709: v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
            case .gamma(let g): pow(v, g)
            }
        }
    }

    /// Builds the profile: header, tag table, desc, cprt, wtpt, r/g/bXYZ (D50, Bradford-adapted), r/g/bTRC.
    static func make(_ p: Primaries, _ curve: ToneCurve) -> [UInt8] {
        let columns = adaptedColumns(p)
        var curveTag = tag("curv", u32(1024))
        for i in 0..<1024 { curveTag += u16(Int((curve.linear(Double(i) / 1023) * 65535).rounded())) }
        let description = "imgprep \(p.name)"
        var desc = tag("desc", u32(description.utf8.count + 1) + Array(description.utf8) + [0])
        desc += u32(0) + u32(0) + u16(0) + [UInt8](repeating: 0, count: 67)  // empty Unicode and ScriptCode parts
        let tags: [(String, [UInt8])] = [
            ("desc", desc),
            ("cprt", tag("text", Array("No copyright, use freely".utf8) + [0])),
            ("wtpt", tag("XYZ ", xyz(0.9642, 1.0, 0.8249))),
            ("rXYZ", tag("XYZ ", xyz(columns[0].0, columns[0].1, columns[0].2))),
            ("gXYZ", tag("XYZ ", xyz(columns[1].0, columns[1].1, columns[1].2))),
            ("bXYZ", tag("XYZ ", xyz(columns[2].0, columns[2].1, columns[2].2))),
            ("rTRC", curveTag), ("gTRC", curveTag), ("bTRC", curveTag),
        ]
        var table = u32(tags.count)
        var body: [UInt8] = []
        var offsets: [[UInt8]: Int] = [:]  // the three TRCs share one copy
        let dataStart = 128 + 4 + 12 * tags.count
        for (signature, data) in tags {
            let offset: Int
            if let shared = offsets[data] {
                offset = shared
            } else {
                offset = dataStart + body.count
                offsets[data] = offset
                body += data
                while body.count % 4 != 0 { body.append(0) }
            }
            table += Array(signature.utf8) + u32(offset) + u32(data.count)
        }
        let size = dataStart + body.count
        var header = u32(size) + Array("none".utf8) + [2, 0x20, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += u16(2024) + u16(1) + u16(1) + u16(0) + u16(0) + u16(0)  // creation date
        header += Array("acsp".utf8) + [UInt8](repeating: 0, count: 16)  // platform, flags, manufacturer, model
        header += [UInt8](repeating: 0, count: 8) + u32(0)  // attributes, rendering intent (perceptual)
        header += xyz(0.9642, 1.0, 0.8249) + [UInt8](repeating: 0, count: 4)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + body
    }

    /// RGB→XYZ columns for the primaries, adapted from their white point to the PCS white (D50).
    static func adaptedColumns(_ p: Primaries) -> [(Double, Double, Double)] {
        func xyzOf(_ c: (Double, Double)) -> [Double] { [c.0 / c.1, 1, (1 - c.0 - c.1) / c.1] }
        let r = xyzOf(p.red), g = xyzOf(p.green), b = xyzOf(p.blue), w = xyzOf(p.white)
        let primaries = Matrix3([r[0], g[0], b[0], r[1], g[1], b[1], r[2], g[2], b[2]])
        guard let scale = primaries.inverted?.applied(to: w), let adapt = Matrix3.bradford(from: w, to: [0.9642, 1.0, 0.8249]) else {
            preconditionFailure("the table's primaries are independent and its whites positive")
        }
        return (0..<3).map { column in
            let c = adapt.applied(to: (0..<3).map { row in primaries.m[row * 3 + column] * scale[column] })
            return (c[0], c[1], c[2])
        }
    }

    private static func tag(_ type: String, _ payload: [UInt8]) -> [UInt8] { Array(type.utf8) + u32(0) + payload }
    private static func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    private static func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    private static func s15f16(_ v: Double) -> [UInt8] { u32(Int((v * 65536).rounded()) & 0xFFFF_FFFF) }
    private static func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { s15f16(x) + s15f16(y) + s15f16(z) }
}
