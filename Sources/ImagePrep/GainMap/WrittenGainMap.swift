/// What an output carries of an HDR gain map, read back from its bytes: for reports.
public struct WrittenGainMap: Sendable, Codable, Equatable {
    public var width: Int
    public var height: Int
    /// The gain-map JPEG's size; the output's byte count includes it.
    public var bytes: Int
    /// Its JPEG quality (fixed, see UltraHDRContainer.mapQuality).
    public var quality: Int
    /// The brightest the HDR rendition gets over SDR white, as a linear factor.
    public var headroom: Double

    /// The gain map an Ultra HDR JPEG's MPF index points to, if any.
    static func describe(_ jpeg: [UInt8]) -> WrittenGainMap? {
        let reading = JPEGGainMapReader.read(jpeg, primaryEXIF: nil, decodes: false)
        guard let range = MultiPictureFormat.secondaryImages(in: jpeg).first, let size = reading.storedSize,
              let headroom = reading.headroom else { return nil }
        return WrittenGainMap(width: size.width, height: size.height, bytes: range.count,
                              quality: JPEGMarkers.estimatedQuality(of: Array(jpeg[range])) ?? UltraHDRContainer.mapQuality,
                              headroom: headroom)
    }
}
