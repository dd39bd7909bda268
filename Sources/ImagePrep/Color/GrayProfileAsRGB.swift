internal import CLCMS

/// Decoders hand gray pictures on as R=G=B RGB, which a gray profile does not describe (libpng refuses
/// it on an RGB PNG; browsers ignore it). An RGB profile whose three curves are the gray curve, with sRGB's
/// primaries, gives every R=G=B pixel the luminance the gray profile gave it.
enum GrayProfileAsRGB {
    /// The RGB equivalent of a gray matrix/TRC profile, or nil when `profile` is not gray or has no gray
    /// curve LittleCMS can read (the caller then drops it).
    static func convert(_ profile: [UInt8]) -> [UInt8]? {
        guard ICCProfileCheck.colourSpace(of: profile) == .gray,
              let context = cmsCreateContext(nil, nil) else { return nil }
        defer { cmsDeleteContext(context) }
        guard let gray = profile.withUnsafeBytes({ cmsOpenProfileFromMemTHR(context, $0.baseAddress, UInt32($0.count)) }) else { return nil }
        defer { cmsCloseProfile(gray) }
        guard let curve = cmsReadTag(gray, cmsSigGrayTRCTag).map(OpaquePointer.init) else { return nil }   // a cmsToneCurve
        // sRGB's D65 white and primaries (IEC 61966-2-1); lcms adapts them to the D50 connection space.
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
                                        Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let rgb = cmsCreateRGBProfileTHR(context, &white, &primaries, &curves) else { return nil }
        defer { cmsCloseProfile(rgb) }
        var size: UInt32 = 0
        guard cmsSaveProfileToMem(rgb, nil, &size) != 0, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard bytes.withUnsafeMutableBytes({ cmsSaveProfileToMem(rgb, $0.baseAddress, &size) }) != 0 else { return nil }
        return Array(bytes.prefix(Int(size)))
    }
}

extension ImageMetadata {
    /// For a decoder that hands gray pixels on as RGB: a gray profile becomes its RGB equivalent, or goes.
    mutating func describeGrayAsRGB(warnings: inout [String]) {
        guard let profile = icc, ICCProfileCheck.colourSpace(of: profile) == .gray else { return }
        if let rgb = GrayProfileAsRGB.convert(profile) {
            icc = rgb
        } else {
            dropICC(because: "its gray curve cannot be read for the RGB pixels it is decoded to", warnings: &warnings)
        }
    }
}
