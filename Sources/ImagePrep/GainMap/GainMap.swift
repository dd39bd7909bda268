import Foundation

/// An HDR gain map: one grey plane that says, pixel by pixel, how much brighter than the SDR picture
/// the HDR rendition is, with the values that turn its samples into that boost. It travels beside the
/// picture and takes the same turns and resizes (see ImagePipeline).
public struct GainMap: Sendable {
    public var plane: GainMapPlane
    /// In Ultra HDR terms (Apple maps are converted on reading, see AppleGainMap).
    public var metadata: GainMapMetadata
    /// Where it came from, for `info` and messages.
    public var origin: GainMapOrigin
    /// The colour space of the HDR rendition, as the map image's own ICC profile states it (ISO 21496-1's
    /// alternate colour space; libultrahdr writes one): checked, and written back with the map.
    public var alternateICC: [UInt8]?

    public init(plane: GainMapPlane, metadata: GainMapMetadata, origin: GainMapOrigin, alternateICC: [UInt8]? = nil) {
        self.plane = plane
        self.metadata = metadata
        self.origin = origin
        self.alternateICC = alternateICC
    }

    /// The map turned like its picture.
    func oriented(_ orientation: ExifOrientation) -> GainMap {
        var copy = self
        copy.plane = plane.oriented(orientation)
        return copy
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

/// The gain map's values as Ultra HDR's `hdrgm` XMP and ISO 21496-1 state them: per channel the minimum
/// and maximum boost (in stops, log2), gamma and offsets (linear); for the whole map the capacities in
/// stops. One set of channel values for a map whose channels share them (a grey map, or a colour map
/// whose three channels are read alike), three (red, green, blue) for per-channel values.
public struct GainMapMetadata: Sendable, Equatable {
    public var channels: [GainMapChannelValues]
    public var hdrCapacityMin: Double
    public var hdrCapacityMax: Double

    public init(channels: [GainMapChannelValues], hdrCapacityMin: Double, hdrCapacityMax: Double) {
        precondition(channels.count == 1 || channels.count == 3, "gain-map values for one channel or three")
        self.channels = channels
        self.hdrCapacityMin = hdrCapacityMin
        self.hdrCapacityMax = hdrCapacityMax
    }

    /// One set of values for every channel.
    public init(gainMapMin: Double, gainMapMax: Double, gamma: Double = 1, offsetSDR: Double = 1.0 / 64,
                offsetHDR: Double = 1.0 / 64, hdrCapacityMin: Double = 0, hdrCapacityMax: Double) {
        self.init(channels: [GainMapChannelValues(gainMapMin: gainMapMin, gainMapMax: gainMapMax, gamma: gamma,
                                                  offsetSDR: offsetSDR, offsetHDR: offsetHDR)],
                  hdrCapacityMin: hdrCapacityMin, hdrCapacityMax: hdrCapacityMax)
    }

    /// Whether each of red, green and blue has values of its own.
    public var isPerChannel: Bool { channels.count == 3 }

    /// Three equal sets said once, as libultrahdr writes them: so the same values read the same way
    /// whichever statement (XMP or ISO block) gave them.
    var collapsed: GainMapMetadata {
        guard isPerChannel, channels.allSatisfy({ $0 == channels[0] }) else { return self }
        return GainMapMetadata(channels: [channels[0]], hdrCapacityMin: hdrCapacityMin, hdrCapacityMax: hdrCapacityMax)
    }

    /// The brightest the HDR rendition gets over SDR white, as a linear factor.
    public var headroom: Double { exp2(hdrCapacityMax) }
}

/// One channel's values (or every channel's, for a map that states them once).
public struct GainMapChannelValues: Sendable, Equatable {
    public var gainMapMin: Double
    public var gainMapMax: Double
    public var gamma: Double
    public var offsetSDR: Double
    public var offsetHDR: Double

    public init(gainMapMin: Double, gainMapMax: Double, gamma: Double = 1, offsetSDR: Double = 1.0 / 64,
                offsetHDR: Double = 1.0 / 64) {
        self.gainMapMin = gainMapMin
        self.gainMapMax = gainMapMax
        self.gamma = gamma
        self.offsetSDR = offsetSDR
        self.offsetHDR = offsetHDR
    }
}

public enum GainMapOrigin: String, Sendable, Codable {
    case appleAuxiliaryImage = "Apple HEIC auxiliary image"
    case appleMPF = "Apple JPEG (MPF second image)"
    case ultraHDR = "Ultra HDR (hdrgm XMP)"
    case iso21496 = "ISO 21496-1"
}

/// 8-bit gain-map samples, rows packed: one channel (a grey map) or three interleaved (red, green and
/// blue: a colour map, as libultrahdr writes from an HDR picture).
public struct GainMapPlane: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int = 1, pixels: [UInt8]) {
        precondition(channels == 1 || channels == 3, "a gain map has one channel or three")
        precondition(width > 0 && height > 0 && pixels.count == width * height * channels, "gain-map plane size")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    func oriented(_ orientation: ExifOrientation) -> GainMapPlane {
        if orientation == .up { return self }
        if channels == 3 {
            let turned = ImagePrep.oriented(PixelBuffer(width: width, height: height, channels: 3, pixels: pixels), orientation)
            return GainMapPlane(width: turned.width, height: turned.height, channels: 3, pixels: turned.pixels)
        }
        let walk = SourceWalk(orientation, width: width, height: height, rowPixels: width)
        let out = [UInt8](unsafeUninitializedCapacity: pixels.count) { buffer, count in
            pixels.withUnsafeBytes { source in
                walk.copy(from: source.baseAddress!, to: UnsafeMutableRawPointer(buffer.baseAddress!), pixel: UInt8.self)   // not empty: sides > 0
            }
            count = pixels.count
        }
        return GainMapPlane(width: walk.width, height: walk.height, pixels: out)
    }

    /// Lanczos like the picture (see `resample`), so the map stays aligned with it.
    func resized(width newWidth: Int, height newHeight: Int, threads: Int) -> GainMapPlane {
        if newWidth == width && newHeight == height { return self }
        let scale = exactScale(from: (width, height), to: (newWidth, newHeight))
        let count = newWidth * newHeight * channels
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, written in
            pixels.withUnsafeBufferPointer { source in
                let grid = SampleGrid(base: source.baseAddress!, width: width, height: height, channels: channels,
                                      rowBytes: width * channels)   // not empty
                resample(grid, span: (Double(width), Double(height)), scale: scale, into: buffer.baseAddress!,
                         width: newWidth, height: newHeight, threads: threads)
            }
            written = count
        }
        return GainMapPlane(width: newWidth, height: newHeight, channels: channels, pixels: out)
    }
}
