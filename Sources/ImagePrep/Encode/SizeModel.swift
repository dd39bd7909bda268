import Foundation

/// How an encoder's output size follows its quality setting, so a budget search can aim its trials:
/// size falls roughly as a power of a per-format "scale", which is what the search interpolates on.
public enum SizeModel: Sendable, Equatable {
    /// libjpeg: sizes of photos fall smoothly with the quantiser scale, roughly as scale^-0.55
    /// (measured on corpus photos with our encoder settings).
    case jpeg
    /// WebP, AVIF and HEIC: provisional, size halves every 14 qualities or so.
    case webp, avif, heic

    /// The scale at `quality`, positive and falling as quality rises.
    func scale(_ quality: Int) -> Double {
        switch self {
        case .jpeg:
            // jpeg_quality_scaling in percent, floored so logs stay finite.
            let q = min(max(quality, 1), 100)
            return max(q < 50 ? 5000 / Double(q) : Double(200 - 2 * q), 0.5)
        case .webp, .avif, .heic:
            return exp(Double(100 - quality) / 20)
        }
    }

    /// The highest quality whose scale is at least `scale` (the inverse of `scale(_:)`, rounded down).
    func quality(atScale scale: Double) -> Int {
        switch self {
        case .jpeg:
            let value = scale <= 100 ? (200 - scale) / 2 : 5000 / scale
            guard value.isFinite else { return value > 0 ? 1000 : -1 }   // a degenerate fit; callers clamp
            return Int(min(max(value, -1), 1000).rounded(.down))
        case .webp, .avif, .heic:
            let value = 100 - 20 * log(scale)
            guard value.isFinite else { return value > 0 ? 1000 : -1 }
            return Int(min(max(value, -1), 1000).rounded(.down))
        }
    }

    /// d log(size) / d log(scale) for a typical photo: the slope used before two sizes are known.
    var typicalSlope: Double {
        switch self {
        case .jpeg: -0.55
        case .webp, .avif, .heic: -1
        }
    }
}
