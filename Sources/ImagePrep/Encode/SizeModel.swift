import Foundation

/// How an encoder's output size follows its quality setting, so a budget search can aim its trials:
/// log(size) falls roughly linearly in log(scale(quality)), where the scale is the encoder's quantiser
/// step for that quality, with `typicalSlope` (measured on corpus photos with our encoder settings).
/// Each picture has its own level, and its own slope within some spread: the search measures those.
public enum SizeModel: Sendable, Equatable {
    /// libjpeg: the quantiser scale (jpeg_quality_scaling); photos fall roughly as scale^-0.55.
    case jpeg
    /// libwebp: the VP8 AC step of the quantiser index its quality maps to.
    case webp
    /// libaom through libheif: the AV1 AC step of the cq-level ((100 - quality) * 63 + 50) / 100.
    case avif
    /// x265 through libheif: CRF = (100 - quality) / 2, where 6 more halves the step; above quality 75
    /// sizes grow only half as fast (x265's psycho-visual tuning keeps less of the extra detail).
    case heic

    /// The scale at `quality`, positive and falling as quality rises.
    func scale(_ quality: Int) -> Double {
        let q = min(max(quality, 1), 100)
        switch self {
        case .jpeg:
            // jpeg_quality_scaling in percent, floored so logs stay finite.
            return max(q < 50 ? 5000 / Double(q) : Double(200 - 2 * q), 0.5)
        case .webp:
            // libwebp's QualityToCompression, then index = 127 * (1 - compression) (VP8SetSegmentParams).
            let c = Double(q) / 100
            let linear = c < 0.75 ? c * 2 / 3 : 2 * c - 1
            return Self.vp8Step(127 * (1 - pow(linear, 1.0 / 3)))
        case .avif:
            let cqLevel = ((100 - q) * 63 + 50) / 100
            return Self.av1Step(Double(cqLevel < 62 ? 4 * cqLevel : cqLevel == 62 ? 249 : 255))
        case .heic:
            let crf = Double((100 - q) / 2)
            return pow(2, (crf >= 12 ? crf : 12 - (12 - crf) / 2) / 6)
        }
    }

    /// The qualities that hand the encoder the same setting as `quality`, and so give the same bytes:
    /// libheif maps AVIF qualities onto 64 cq-levels, and x265 codes HEIC at a whole CRF (two qualities
    /// each; a test checks that this still holds).
    func sameSetting(as quality: Int) -> ClosedRange<Int> {
        let q = min(max(quality, 1), 100)
        switch self {
        case .jpeg, .webp:
            return q...q
        case .avif:
            let level = { (quality: Int) in ((100 - quality) * 63 + 50) / 100 }
            var (lower, upper) = (q, q)
            while lower > 1, level(lower - 1) == level(q) { lower -= 1 }
            while upper < 100, level(upper + 1) == level(q) { upper += 1 }
            return lower...upper
        case .heic:
            let crf = (100 - q) / 2
            return max(1, 100 - 2 * crf - 1)...(100 - 2 * crf)
        }
    }

    /// d log(size) / d log(scale) for a typical photo: the slope used where nothing measured says otherwise
    /// (medians over 18 corpus photos at 1024 pixels, qualities 30-95; photos range over about +-40%).
    var typicalSlope: Double {
        switch self {
        case .jpeg: -0.55
        case .webp: -0.87
        case .avif: -0.78
        case .heic: -0.85
        }
    }

    /// Bytes of a whole picture per byte of its probe mosaic, per unit of area (ProbeMosaic): the crops'
    /// borders make the mosaic a little denser for block-adaptive codecs. Means over corpus photos (12 for
    /// JPEG and WebP, 5 for AVIF and HEIC) at qualities 50 and 80; spread 3% (JPEG, HEIC) to 6% (AVIF).
    var probeRatio: Double {
        switch self {
        case .jpeg: 1.01
        case .webp: 0.97
        case .avif: 0.95
        case .heic: 0.98
        }
    }

    /// RFC 6386's AC dequantisation table as the lines it is made of (within 1%).
    private static func vp8Step(_ index: Double) -> Double {
        switch index {
        case ..<55: 4 + max(index, 0)
        case ..<84: 60 + 2 * (index - 55)
        case ..<103: 119 + 3 * (index - 84)
        case ..<119: 177 + 4 * (index - 103)
        default: 245 + 5 * (min(index, 127) - 119)
        }
    }

    /// libaom's 8-bit AC step: the index plus 7 up to 95, then growing about 1.8% per index.
    private static func av1Step(_ qindex: Double) -> Double {
        qindex <= 95 ? max(qindex + 7, 4) : 102 * exp(0.018 * (qindex - 95))
    }
}
