/// What a decoder found about a gain map: which kind there is (cheap, from headers), and the map
/// itself when the pipeline asked for it (`DecodeOptions.readsGainMap`).
public struct GainMapReading: Sendable {
    /// The kind of gain map the file has, even when it was not decoded; nil without one.
    public var origin: GainMapOrigin?
    public var gainMap: GainMap?
    /// The headroom as the file states it (a linear factor), also when the map was not decoded; nil
    /// when the file does not say or says something that fails the checks (`problem`).
    public var headroom: Double?
    /// The map's size as stored, when known.
    public var storedSize: (width: Int, height: Int)?
    /// The map image's channels as stored (1 grey, 3 colour), when known.
    public var storedChannels: Int?
    /// Whether the values differ from channel to channel (three sets, red, green and blue).
    public var perChannelValues = false
    /// Why the map cannot be carried, naming the value or structure at fault: the map is left out.
    public var problem: String?
    /// Whether everything the map's own image states was read and agrees (its XMP and its ISO block
    /// both valid), so an unchanged file may leave byte for byte.
    var statementsAreClean = false
    public var warnings: [String] = []

    public init(origin: GainMapOrigin? = nil, gainMap: GainMap? = nil, headroom: Double? = nil) {
        self.origin = origin
        self.gainMap = gainMap
        self.headroom = headroom
    }
}
