internal import CLCMS
internal import CSSIMULACRA2
import Foundation

/// How one picture's 8-bit samples become the linear sRGB SSIMULACRA 2 reads, as the reference does it
/// (libjxl's colour management: relative colorimetric with black-point compensation, to linear sRGB,
/// nothing clipped). No profile means sRGB.
///
/// Opaque pixels go through tables: a matrix/curve profile (almost all of them: sRGB, Display P3, Adobe RGB)
/// is a curve per channel and then a matrix, so each 8-bit value of each channel adds a fixed RGB triple.
/// A profile the tables do not reproduce (a lookup-table profile) and pixels composited on a background
/// (no longer 8-bit values) go through LittleCMS pixel by pixel.
struct LinearLight: Sendable {
    /// 3 x 256 RGB triples (CSSIMULACRA2's table layout), or nil: per pixel through `profile`.
    let table: [Float]?
    /// The ICC profile (RGB; a gray one is turned into its RGB equivalent), nil for sRGB.
    let profile: [UInt8]?
    /// The profile as given (to recognise it again).
    let source: [UInt8]?
    /// Bytes of the two float buffers the per-pixel path converts through.
    static let bandBytes = 2 * LinearBand.size * 3 * MemoryLayout<Float>.size

    init(profile: [UInt8]?) throws {
        source = profile
        guard let profile, !profile.isEmpty else {
            self.profile = nil
            table = LinearLight.sRGBTable
            return
        }
        let rgb = ICCProfileCheck.colourSpace(of: profile) == .gray ? GrayProfileAsRGB.convert(profile) : profile
        guard let rgb else { throw ImagePrepError(.unsupported, "the gray colour profile's curve cannot be read") }
        self.profile = rgb
        let transform = try LinearTransform(from: rgb)
        table = transform.separableTable()
    }

    /// Writes pixels `start ..< start + count` of `image` as linear planes at `r`, `g`, `b`: composited on gray
    /// `background` (0...1, in the picture's own encoding, as the reference blends before converting) when it
    /// has alpha and a background is given; alpha is ignored otherwise. `band` holds the per-pixel path's
    /// buffers between calls.
    func fill(_ image: PixelBuffer, background: Float?, start: Int, count: Int, band: inout LinearBand,
              _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>) throws {
        let blend = image.hasAlpha ? background : nil
        if blend == nil, let table {
            image.pixels.withUnsafeBufferPointer { pixels in
                table.withUnsafeBufferPointer { table in
                    ssim2_planes_from_tables(pixels.baseAddress.map { $0 + start * image.channels }, count,
                                             Int32(image.channels), table.baseAddress, r, g, b)
                }
            }
            return
        }
        // Per pixel, a band at a time through one float buffer (encoded, then linear).
        if band.transform == nil, let profile { band.transform = try LinearTransform(from: profile) }
        if band.encoded.isEmpty {
            band.encoded = [Float](repeating: 0, count: LinearBand.size * 3)
            band.linear = band.encoded
        }
        let transform = band.transform, size = LinearBand.size
        try image.pixels.withUnsafeBufferPointer { pixels in
            guard let base = pixels.baseAddress else { throw ImagePrepError(.unsupported, "the picture has no pixels") }
            var done = 0
            while done < count {
                let n = min(size, count - done), at = start + done
                band.encoded.withUnsafeMutableBufferPointer { out in
                    if let blend {
                        ssim2_blend(base + at * 4, n, blend, out.baseAddress)
                    } else {
                        let channels = image.channels
                        for i in 0..<n {
                            for k in 0..<3 { out[i * 3 + k] = Float(base[(at + i) * channels + k]) * (1 / 255) }
                        }
                    }
                }
                band.encoded.withUnsafeBufferPointer { input in
                    band.linear.withUnsafeMutableBufferPointer { output in
                        if let transform {
                            transform.apply(input.baseAddress!, output.baseAddress!, count: n)   // both arrays hold size * 3 floats
                            ssim2_planes_from_interleaved(output.baseAddress, n, r + done, g + done, b + done)
                        } else {
                            ssim2_planes_from_srgb(input.baseAddress, n, r + done, g + done, b + done)
                        }
                    }
                }
                done += n
            }
        }
    }

    /// sRGB's curve on the diagonal, as the reference evaluates it (ssim2_planes_from_srgb).
    static let sRGBTable: [Float] = {
        let encoded = (0..<256).flatMap { v in [Float](repeating: Float(v) * (1 / 255), count: 3) }
        var linear = [Float](repeating: 0, count: 256 * 3)
        encoded.withUnsafeBufferPointer { input in
            linear.withUnsafeMutableBufferPointer { output in
                // Three planes of 256 floats, one after another.
                let base = output.baseAddress!   // a non-empty array
                ssim2_planes_from_srgb(input.baseAddress, 256, base, base + 256, base + 512)
            }
        }
        var table = [Float](repeating: 0, count: 3 * 768)
        for v in 0..<256 { for c in 0..<3 { table[c * 768 + v * 3 + c] = linear[c * 256 + v] } }
        return table
    }()
}

/// The per-pixel path's buffers and transform, made on first use and kept for the picture's other rows.
struct LinearBand {
    static let size = 16384
    var encoded: [Float] = [], linear: [Float] = []
    var transform: LinearTransform?
}

/// A LittleCMS transform from an RGB profile to linear sRGB, float in and out, with the settings of
/// libjxl's colour management (relative colorimetric, black-point compensation, high-resolution
/// precalculation, no cache so that it is safe from any thread).
final class LinearTransform {
    private let context: cmsContext
    private let transform: cmsHTRANSFORM
    private let log: LCMSLog   // the context's logger writes here

    /// lcms2.h's TYPE_RGB_FLT (FLOAT_SH(1) | COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(4)).
    private static let rgbFloat = UInt32(1 << 22 | Int(PT_RGB) << 16 | 3 << 3 | 4)

    init(from profile: [UInt8]) throws {
        let log = LCMSLog()
        guard let context = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            throw ImagePrepError.library("lcms2", "out of memory", kind: .io)
        }
        cmsSetLogErrorHandlerTHR(context) { context, _, text in
            guard let context, let userData = cmsGetContextUserData(context), let text else { return }
            Unmanaged<LCMSLog>.fromOpaque(userData).takeUnretainedValue().record(String(cString: text))
        }
        func fail(_ what: String) -> ImagePrepError {
            cmsDeleteContext(context)
            return ImagePrepError.library("lcms2", "\(what): \(log.last ?? "unknown error")", kind: .unsupported)
        }
        guard let source = profile.withUnsafeBytes({ cmsOpenProfileFromMemTHR(context, $0.baseAddress, UInt32($0.count)) }) else {
            throw fail("cannot read the colour profile")
        }
        defer { cmsCloseProfile(source) }
        guard cmsGetColorSpace(source) == cmsSigRgbData else {
            throw ImagePrepError(.unsupported, "the colour profile does not describe RGB pixels")
        }
        // Linear sRGB: sRGB's D65 white and primaries with a straight-line curve.
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
                                        Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        guard let line = cmsBuildGamma(context, 1.0) else { throw fail("cannot make a linear curve") }
        defer { cmsFreeToneCurve(line) }
        var curves: [OpaquePointer?] = [line, line, line]
        guard let linear = cmsCreateRGBProfileTHR(context, &white, &primaries, &curves) else {
            throw fail("cannot make the linear sRGB profile")
        }
        defer { cmsCloseProfile(linear) }
        let flags = UInt32(cmsFLAGS_NOCACHE) | UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION) | UInt32(cmsFLAGS_HIGHRESPRECALC)
        guard let transform = cmsCreateTransformTHR(context, source, Self.rgbFloat, linear, Self.rgbFloat,
                                                    UInt32(INTENT_RELATIVE_COLORIMETRIC), flags) else {
            throw fail("cannot convert from this colour profile")
        }
        self.context = context
        self.transform = transform
        self.log = log
    }

    deinit {
        cmsDeleteTransform(transform)
        cmsDeleteContext(context)
    }

    /// `count` interleaved RGB float pixels (encoded, 0...1) to linear sRGB.
    func apply(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int) {
        cmsDoTransform(transform, input, output, UInt32(count))
    }

    /// The per-channel tables, when they reproduce this transform (to 1e-5 on a grid of colours
    /// including the corners of the gamut): linear(r, g, b) = T(r, 0, 0) + T(0, g, 0) + T(0, 0, b) - 2 T(0, 0, 0).
    func separableTable() -> [Float]? {
        var input = [Float](repeating: 0, count: 769 * 3)
        for c in 0..<3 { for v in 0..<256 { input[(1 + c * 256 + v) * 3 + c] = Float(v) / 255 } }
        var output = [Float](repeating: 0, count: input.count)
        run(input, &output)
        var table = [Float](repeating: 0, count: 3 * 768)
        for c in 0..<3 {
            for v in 0..<256 {
                for k in 0..<3 {
                    let black = c == 0 ? 0 : output[k]
                    table[c * 768 + v * 3 + k] = output[(1 + c * 256 + v) * 3 + k] - black
                }
            }
        }
        // The check: a grid of colours, converted directly and through the tables.
        let levels: [Int] = [0, 17, 64, 128, 200, 255]
        var grid: [Float] = [], expected: [[Float]] = []
        for r in levels { for g in levels { for b in levels {
            grid += [Float(r) / 255, Float(g) / 255, Float(b) / 255]
            expected.append((0..<3).map { k in table[r * 3 + k] + table[768 + g * 3 + k] + table[1536 + b * 3 + k] })
        } } }
        var direct = [Float](repeating: 0, count: grid.count)
        run(grid, &direct)
        for (i, want) in expected.enumerated() {
            for k in 0..<3 where !(abs(direct[i * 3 + k] - want[k]) <= 1e-5) { return nil }
        }
        return table
    }

    private func run(_ input: [Float], _ output: inout [Float]) {
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                cmsDoTransform(transform, i.baseAddress, o.baseAddress, UInt32(input.count / 3))
            }
        }
    }
}
