internal import CLCMS
import Foundation

/// What a matrix/TRC RGB profile describes, in the terms a format can state without carrying the profile
/// (code points such as H.273's, or JPEG XL's colour encoding): the white point and primaries as they
/// were before the profile adapted them to its D50 connection space, and one transfer curve. Read with
/// LittleCMS and accepted only when a profile rebuilt from these values converts a grid of colours the
/// same way as the original (within a quarter of an 8-bit step), so a format that states them shows
/// the same colours.
struct ProfileColorimetry: Equatable {
    struct Chromaticity: Equatable {
        var x: Double, y: Double

        func isNear(_ other: Chromaticity, within tolerance: Double = 0.001) -> Bool {
            abs(x - other.x) <= tolerance && abs(y - other.y) <= tolerance
        }
    }

    enum Transfer: Equatable {
        case sRGB, linear, bt709
        /// Encoded = linear^(1/exponent).
        case gamma(Double)
    }

    var white: Chromaticity
    var red: Chromaticity, green: Chromaticity, blue: Chromaticity
    var transfer: Transfer
    /// The header's rendering intent (ICC: 0 perceptual, 1 relative colorimetric, 2 saturation, 3 absolute).
    var renderingIntent: Int

    static let d65 = Chromaticity(x: 0.3127, y: 0.3290)
    static let sRGBPrimaries = [Chromaticity(x: 0.64, y: 0.33), Chromaticity(x: 0.30, y: 0.60), Chromaticity(x: 0.15, y: 0.06)]
    static let p3Primaries = [Chromaticity(x: 0.680, y: 0.320), Chromaticity(x: 0.265, y: 0.690), Chromaticity(x: 0.150, y: 0.060)]
    static let bt2020Primaries = [Chromaticity(x: 0.708, y: 0.292), Chromaticity(x: 0.170, y: 0.797), Chromaticity(x: 0.131, y: 0.046)]

    var primaries: [Chromaticity] { [red, green, blue] }

    /// The colorimetry of `profile`, or nil when it is not an RGB matrix/TRC profile or its values do not
    /// reproduce it (a LUT profile, three different curves, a curve that is none of the four kinds).
    static func of(_ profile: [UInt8]) -> ProfileColorimetry? {
        guard let context = cmsCreateContext(nil, nil) else { return nil }
        defer { cmsDeleteContext(context) }
        guard let handle = profile.withUnsafeBytes({ cmsOpenProfileFromMemTHR(context, $0.baseAddress, UInt32($0.count)) }) else { return nil }
        defer { cmsCloseProfile(handle) }
        guard cmsGetColorSpace(handle) == cmsSigRgbData, cmsGetPCS(handle) == cmsSigXYZData,
              cmsIsMatrixShaper(handle) != 0 else { return nil }
        func xyz(_ tag: cmsTagSignature) -> [Double]? {
            guard let raw = cmsReadTag(handle, tag) else { return nil }
            let value = raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            let triple = [value.X, value.Y, value.Z]
            return triple.allSatisfy({ $0.isFinite }) ? triple : nil
        }
        guard let r = xyz(cmsSigRedColorantTag), let g = xyz(cmsSigGreenColorantTag), let b = xyz(cmsSigBlueColorantTag) else { return nil }
        // The adaptation the profile applied: its `chad` tag; else Bradford from the white a v2 profile
        // states; else (a white of D50, as v4 and many v2 profiles give it) Bradford from D65, the white
        // of every common display space. Any white reproduces the profile's colours (see `reproduces`):
        // it only decides how they are stated.
        let d50 = [0.9642, 1.0, 0.8249], d65 = [0.95047, 1.0, 1.08883]
        var adaptation: Matrix3?
        if let raw = cmsReadTag(handle, cmsSigChromaticAdaptationTag) {
            let values = Array(UnsafeBufferPointer(start: raw.assumingMemoryBound(to: Double.self), count: 9))
            if values.allSatisfy({ $0.isFinite }) { adaptation = Matrix3(values) }
        } else if let white = xyz(cmsSigMediaWhitePointTag), white[1] > 0,
                  zip(white, d50).contains(where: { abs($0 - $1) > 0.002 }) {
            adaptation = Matrix3.bradford(from: white, to: d50)
        } else {
            adaptation = Matrix3.bradford(from: d65, to: d50)
        }
        guard let inverse = adaptation?.inverted else { return nil }
        func chromaticity(_ xyz: [Double]) -> Chromaticity? {
            let original = inverse.applied(to: xyz)
            let sum = original.reduce(0, +)
            guard sum > 1e-9, sum.isFinite else { return nil }
            return Chromaticity(x: original[0] / sum, y: original[1] / sum)
        }
        guard let white = chromaticity(d50), let red = chromaticity(r), let green = chromaticity(g), let blue = chromaticity(b),
              let transfer = transfer(of: handle) else { return nil }
        let found = ProfileColorimetry(white: white, red: red, green: green, blue: blue, transfer: transfer,
                                       renderingIntent: Int(cmsGetHeaderRenderingIntent(handle) & 3))
        return found.reproduces(handle, context: context) ? found : nil
    }

    /// The one curve all three channels share, as one of the four kinds, or nil.
    private static func transfer(of handle: cmsHPROFILE) -> Transfer? {
        let tags = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag]
        let curves = tags.compactMap { cmsReadTag(handle, $0).map(OpaquePointer.init) }   // cmsToneCurve
        guard curves.count == 3 else { return nil }
        let samples = (0...64).map { Float($0) / 64 }
        let values = curves.map { curve in samples.map { Double(cmsEvalToneCurveFloat(curve, $0)) } }
        guard values.dropFirst().allSatisfy({ zip($0, values[0]).allSatisfy { abs($0 - $1) <= 1e-4 } }) else { return nil }
        // A pure power curve's exponent, from its middle (then checked everywhere, like the others).
        let middle = Double(cmsEvalToneCurveFloat(curves[0], 0.5))
        let exponent = middle > 0 && middle < 1 ? (log(middle) / log(0.5) * 1000).rounded() / 1000 : 0
        let kinds: [Transfer] = [.sRGB, .linear, .bt709] + (exponent > 0.1 && exponent < 10 ? [.gamma(exponent)] : [])
        return kinds.first { kind in zip(samples, values[0]).allSatisfy { abs(kind.linear(Double($0)) - $1) <= 1.0 / 1024 } }
    }

    /// Whether a profile made from these values (LittleCMS adapts them to D50 with Bradford, as profiles
    /// are made) converts colours as `original` does.
    private func reproduces(_ original: cmsHPROFILE, context: cmsContext) -> Bool {
        var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        var triple = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: red.x, y: red.y, Y: 1), Green: cmsCIExyY(x: green.x, y: green.y, Y: 1),
                                     Blue: cmsCIExyY(x: blue.x, y: blue.y, Y: 1))
        // Parametric, so LittleCMS inverts it exactly (a table's inverse is coarse near black).
        let curve: OpaquePointer?
        switch transfer {
        case .sRGB: curve = cmsBuildParametricToneCurve(context, 4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        case .bt709: curve = cmsBuildParametricToneCurve(context, 4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
        case .linear: curve = cmsBuildGamma(context, 1)
        case .gamma(let exponent): curve = cmsBuildGamma(context, exponent)
        }
        guard let curve else { return false }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let rebuilt = cmsCreateRGBProfileTHR(context, &whitePoint, &triple, &curves) else { return false }
        defer { cmsCloseProfile(rebuilt) }
        let format = UInt32(Int(PT_RGB) << 16 | 3 << 3 | 4) | UInt32(1 << 22)   // TYPE_RGB_FLT: FLOAT_SH(1), 4-byte samples
        guard let transform = cmsCreateTransformTHR(context, original, format, rebuilt, format,
                                                    UInt32(INTENT_RELATIVE_COLORIMETRIC), UInt32(cmsFLAGS_NOCACHE)) else { return false }
        defer { cmsDeleteTransform(transform) }
        let steps = 9
        var input: [Float] = []
        for r in 0..<steps { for g in 0..<steps { for b in 0..<steps { input += [r, g, b].map { Float($0) / Float(steps - 1) } } } }
        var output = [Float](repeating: 0, count: input.count)
        cmsDoTransform(transform, input, &output, UInt32(input.count / 3))
        return zip(input, output).allSatisfy { abs($0 - $1) <= 0.25 / 255 }
    }
}

extension ProfileColorimetry.Transfer {
    /// Encoded value (0...1) to linear light.
    func linear(_ v: Double) -> Double {
        switch self {
        case .sRGB: v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        case .linear: v
        case .bt709: v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
        case .gamma(let exponent): pow(v, exponent)
        }
    }
}

/// A 3x3 matrix, rows first: enough for chromatic adaptation.
struct Matrix3 {
    var m: [Double]

    init(_ values: [Double]) { m = values }

    func applied(to v: [Double]) -> [Double] {
        (0..<3).map { row in m[row * 3] * v[0] + m[row * 3 + 1] * v[1] + m[row * 3 + 2] * v[2] }
    }

    func multiplied(by other: Matrix3) -> Matrix3 {
        Matrix3((0..<9).map { index in
            let (row, column) = (index / 3, index % 3)
            return (0..<3).reduce(0) { $0 + m[row * 3 + $1] * other.m[$1 * 3 + column] }
        })
    }

    var inverted: Matrix3? {
        let a = m
        let c0 = a[4] * a[8] - a[5] * a[7], c1 = a[5] * a[6] - a[3] * a[8], c2 = a[3] * a[7] - a[4] * a[6]
        let determinant = a[0] * c0 + a[1] * c1 + a[2] * c2
        guard abs(determinant) > 1e-12, determinant.isFinite else { return nil }
        let inverse = [c0, a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                       c1, a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                       c2, a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]]
        return Matrix3(inverse.map { $0 / determinant })
    }

    /// The Bradford adaptation from one white (XYZ) to another.
    static func bradford(from source: [Double], to destination: [Double]) -> Matrix3? {
        let cone = Matrix3([0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296])
        guard let back = cone.inverted else { return nil }
        let s = cone.applied(to: source), d = cone.applied(to: destination)
        guard s.allSatisfy({ abs($0) > 1e-12 }) else { return nil }
        let scale = Matrix3([d[0] / s[0], 0, 0, 0, d[1] / s[1], 0, 0, 0, d[2] / s[2]])
        return back.multiplied(by: scale).multiplied(by: cone)
    }
}
