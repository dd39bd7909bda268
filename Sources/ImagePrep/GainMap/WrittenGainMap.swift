/// What an output carries of an HDR gain map, read back from its bytes by its writer
/// (`GainMapWriter.writtenGainMap(in:)`): for reports.
public struct WrittenGainMap: Sendable, Codable, Equatable {
    public var width: Int
    public var height: Int
    /// The gain-map image's size; the output's byte count includes it.
    public var bytes: Int
    /// Its quality (the writer's, or the picture's when lower).
    public var quality: Int
    /// The brightest the HDR rendition gets over SDR white, as a linear factor.
    public var headroom: Double
}
