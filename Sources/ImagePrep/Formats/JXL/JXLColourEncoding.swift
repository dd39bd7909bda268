internal import CJXL

/// A lossy JPEG XL states its colours as a colour encoding (white point, primaries, transfer) rather than
/// an ICC profile: libjxl 0.7 derives one from a profile itself, and gets Apple's Display P3 wrong (a
/// white near x 0.278, y 0.296 and green near 0.240, 0.710; cjxl does the same), so imgprep derives
/// it (ProfileColorimetry, checked with LittleCMS) and names the standard ones.
extension ProfileColorimetry {
    var jxlEncoding: JxlColorEncoding {
        var encoding = JxlColorEncoding()
        encoding.color_space = JXL_COLOR_SPACE_RGB
        if white.isNear(Self.d65) {
            encoding.white_point = JXL_WHITE_POINT_D65
        } else {
            encoding.white_point = JXL_WHITE_POINT_CUSTOM
            encoding.white_point_xy = (white.x, white.y)
        }
        func matches(_ standard: [Chromaticity]) -> Bool { zip(primaries, standard).allSatisfy { $0.isNear($1, within: 0.002) } }
        if matches(Self.sRGBPrimaries) {
            encoding.primaries = JXL_PRIMARIES_SRGB
        } else if matches(Self.p3Primaries) {
            encoding.primaries = JXL_PRIMARIES_P3
        } else if matches(Self.bt2020Primaries) {
            encoding.primaries = JXL_PRIMARIES_2100
        } else {
            encoding.primaries = JXL_PRIMARIES_CUSTOM
            encoding.primaries_red_xy = (red.x, red.y)
            encoding.primaries_green_xy = (green.x, green.y)
            encoding.primaries_blue_xy = (blue.x, blue.y)
        }
        switch transfer {
        case .sRGB: encoding.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
        case .linear: encoding.transfer_function = JXL_TRANSFER_FUNCTION_LINEAR
        case .bt709: encoding.transfer_function = JXL_TRANSFER_FUNCTION_709
        case .gamma(let exponent):
            encoding.transfer_function = JXL_TRANSFER_FUNCTION_GAMMA
            encoding.gamma = 1 / exponent   // libjxl's gamma is the encoding exponent (0.45 for 2.2)
        }
        encoding.rendering_intent = [JXL_RENDERING_INTENT_PERCEPTUAL, JXL_RENDERING_INTENT_RELATIVE,
                                     JXL_RENDERING_INTENT_SATURATION, JXL_RENDERING_INTENT_ABSOLUTE][renderingIntent]
        return encoding
    }
}
