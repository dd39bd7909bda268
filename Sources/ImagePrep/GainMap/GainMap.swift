import Foundation

/// An HDR gain map: one grey plane that says, pixel by pixel, how much brighter than the SDR picture
/// the HDR rendition is, with the values that turn its samples into that boost. It travels beside the
/// picture and takes the same turns and resizes (see ImagePipeline).
public struct GainMap: Sendable {
    public var plane: GrayPlane
    /// In Ultra HDR terms (Apple maps are converted on reading, see AppleGainMap).
    public var metadata: GainMapMetadata
    /// Where it came from, for `info` and messages.
    public var origin: GainMapOrigin

    public init(plane: GrayPlane, metadata: GainMapMetadata, origin: GainMapOrigin) {
        self.plane = plane
        self.metadata = metadata
        self.origin = origin
    }

    /// The map scaled by the factors that took the picture from `from` to `to`, so it keeps its
    /// proportion to the picture (a quarter-size map stays a quarter size).
    func scaled(from: (width: Int, height: Int), to: (width: Int, height: Int), threads: Int) -> GainMap {
        guard from != to else { return self }
        let width = max(1, Int((Double(plane.width) * Double(to.width) / Double(from.width)).rounded()))
        let height = max(1, Int((Double(plane.height) * Double(to.height) / Double(from.height)).rounded()))
        var copy = self
        copy.plane = plane.resized(width: width, height: height, threads: threads)
        return copy
    }
}

/// The gain map's values as Ultra HDR's `hdrgm` XMP states them: minimum and maximum boost and the
/// capacities in stops (log2), gamma and offsets linear. Single-channel (a grey map).
public struct GainMapMetadata: Sendable, Equatable {
    public var gainMapMin: Double
    public var gainMapMax: Double
    public var gamma: Double
    public var offsetSDR: Double
    public var offsetHDR: Double
    public var hdrCapacityMin: Double
    public var hdrCapacityMax: Double

    public init(gainMapMin: Double, gainMapMax: Double, gamma: Double = 1, offsetSDR: Double = 1.0 / 64,
                offsetHDR: Double = 1.0 / 64, hdrCapacityMin: Double = 0, hdrCapacityMax: Double) {
        self.gainMapMin = gainMapMin
        self.gainMapMax = gainMapMax
        self.gamma = gamma
        self.offsetSDR = offsetSDR
        self.offsetHDR = offsetHDR
        self.hdrCapacityMin = hdrCapacityMin
        self.hdrCapacityMax = hdrCapacityMax
    }

    /// The brightest the HDR rendition gets over SDR white, as a linear factor.
    public var headroom: Double { exp2(hdrCapacityMax) }
}

public enum GainMapOrigin: String, Sendable, Codable {
    case appleAuxiliaryImage = "Apple HEIC auxiliary image"
    case appleMPF = "Apple JPEG (MPF second image)"
    case ultraHDR = "Ultra HDR (hdrgm XMP)"
    case iso21496 = "ISO 21496-1"
}

/// 8-bit grey samples, rows packed.
public struct GrayPlane: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "grey plane size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    func oriented(_ orientation: ExifOrientation) -> GrayPlane {
        if orientation == .up { return self }
        let walk = SourceWalk(orientation, width: width, height: height, rowPixels: width)
        let out = [UInt8](unsafeUninitializedCapacity: pixels.count) { buffer, count in
            pixels.withUnsafeBytes { source in
                walk.copy(from: source.baseAddress!, to: UnsafeMutableRawPointer(buffer.baseAddress!), pixel: UInt8.self)   // not empty: sides > 0
            }
            count = pixels.count
        }
        return GrayPlane(width: walk.width, height: walk.height, pixels: out)
    }

    /// Lanczos like the picture (see `resample`), so the map stays aligned with it.
    func resized(width newWidth: Int, height newHeight: Int, threads: Int) -> GrayPlane {
        if newWidth == width && newHeight == height { return self }
        let scale = exactScale(from: (width, height), to: (newWidth, newHeight))
        let out = [UInt8](unsafeUninitializedCapacity: newWidth * newHeight) { buffer, count in
            pixels.withUnsafeBufferPointer { source in
                let grid = SampleGrid(base: source.baseAddress!, width: width, height: height, channels: 1, rowBytes: width)   // not empty
                resample(grid, span: (Double(width), Double(height)), scale: scale, into: buffer.baseAddress!,
                         width: newWidth, height: newHeight, threads: threads)
            }
            count = newWidth * newHeight
        }
        return GrayPlane(width: newWidth, height: newHeight, pixels: out)
    }
}
