import Synchronization

/// A JPEG encoder that writes Ultra HDR: every encode (each trial of a budget search too) is the
/// whole file, gain map included, so budgets count it. The map follows the picture: its size (a shrink
/// to fit a budget shrinks it in proportion) and its quality (never above the picture's, so a budget
/// search lowering the picture lowers the map with it); each size and quality's map is encoded once and
/// shared by the trials.
struct GainMapJPEGEncoder: ImageEncoding {
    let base: any ImageEncoding
    /// The map for a picture of `pictureSize`.
    let gainMap: GainMap
    let pictureSize: (width: Int, height: Int)
    let threads: Int
    private let maps: EncodedGainMaps

    init(base: any ImageEncoding, gainMap: GainMap, pictureSize: (width: Int, height: Int), threads: Int) {
        self.base = base
        self.gainMap = gainMap
        self.pictureSize = pictureSize
        self.threads = threads
        self.maps = EncodedGainMaps()
    }

    private init(base: any ImageEncoding, sharing other: GainMapJPEGEncoder) {
        self.base = base
        self.gainMap = other.gainMap
        self.pictureSize = other.pictureSize
        self.threads = other.threads
        self.maps = other.maps
    }

    var format: OutputFormat { base.format }
    var traits: FormatTraits { base.traits }
    var ycbcrLayout: YCbCrLayout? { base.ycbcrLayout }
    var runsTrialsSideBySide: Bool { base.runsTrialsSideBySide }
    var workingBytesPerPixel: Int { base.workingBytesPerPixel }
    var alternative: (any ImageEncoding)? { base.alternative.map { GainMapJPEGEncoder(base: $0, sharing: self) } }
    /// Probes of a crop mosaic measure the picture alone.
    var pictureEncoder: any ImageEncoding { base }

    func meanSquaredError(of encoded: [UInt8], from picture: DecodedPixels) -> Double? {
        base.meanSquaredError(of: encoded, from: picture)   // libjpeg decodes the primary and stops at its EOI
    }

    /// The metadata with the XMP that points to the map, and the ISO and MPF segments (the map itself
    /// shrinks with the picture: `bytesBesidePicture`).
    func metadataBytes(_ metadata: ImageMetadata) -> Int {
        let mapLength = (try? map(width: pictureSize.width, height: pictureSize.height, quality: UltraHDRContainer.mapQuality).count) ?? 0
        return base.metadataBytes(UltraHDRContainer.primaryMetadata(metadata, mapLength: mapLength)) + UltraHDRContainer.indexBytes
    }

    /// At the map's own quality, the most it takes (lower picture qualities take less).
    func bytesBesidePicture(width: Int, height: Int) -> Int {
        (try? map(width: width, height: height, quality: UltraHDRContainer.mapQuality).count) ?? 0
    }

    func encode(_ picture: DecodedPixels, quality: Int, metadata: ImageMetadata) throws -> [UInt8] {
        let map = try map(width: picture.width, height: picture.height, quality: min(quality, UltraHDRContainer.mapQuality))
        let primary = try base.encode(picture, quality: quality,
                                      metadata: UltraHDRContainer.primaryMetadata(metadata, mapLength: map.count))
        return UltraHDRContainer.assemble(primary: primary, map: map)
    }

    /// The encoded map for a picture of `width` x `height`, at `quality`.
    func map(width: Int, height: Int, quality: Int) throws -> [UInt8] {
        let key = MapKey(width: width, height: height, quality: quality)
        if let known = maps.cache.withLock({ $0[key] }) { return known }
        let scaled = gainMap.scaled(from: pictureSize, to: (width, height), threads: threads)
        let bytes = try UltraHDRContainer.encodeMap(scaled, quality: quality)
        maps.cache.withLock { $0[key] = bytes }
        return bytes
    }
}

private struct MapKey: Hashable {
    var width: Int, height: Int, quality: Int
}

/// Encoded maps by picture size, shared by the trials of one search (which may run side by side).
private final class EncodedGainMaps: Sendable {
    let cache = Mutex<[MapKey: [UInt8]]>([:])
}
