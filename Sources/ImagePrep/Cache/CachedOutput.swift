/// What a cache hit needs besides the output bytes to report the file as if it had been converted:
/// the fields of `PreparedImage` the JSON line and the summary use.
public struct CachedOutput: Sendable, Equatable, Codable {
    public var format: OutputFormat
    public var width: Int
    public var height: Int
    /// The JPEG quality written (nil for PNG and for inputs passed through unchanged).
    public var quality: Int?
    /// Encodes it took when it was made (a hit itself takes none).
    public var encodes: Int
    public var passedThrough: Bool
    public var warnings: [String]

    public init(format: OutputFormat, width: Int, height: Int, quality: Int?, encodes: Int,
                passedThrough: Bool, warnings: [String]) {
        self.format = format
        self.width = width
        self.height = height
        self.quality = quality
        self.encodes = encodes
        self.passedThrough = passedThrough
        self.warnings = warnings
    }

    /// What to remember of a freshly prepared image.
    public init(_ prepared: PreparedImage) {
        self.init(format: prepared.format, width: prepared.width, height: prepared.height, quality: prepared.quality,
                  encodes: prepared.encodes, passedThrough: prepared.passedThrough, warnings: prepared.warnings)
    }

    /// The cached output as the pipeline would have returned it, with no encodes spent this time.
    public func preparedImage(bytes: [UInt8]) -> PreparedImage {
        PreparedImage(bytes: bytes, format: format, width: width, height: height, quality: quality, encodes: 0,
                      passedThrough: passedThrough, warnings: warnings,
                      gainMap: format == .jpeg ? WrittenGainMap.describe(bytes) : nil)
    }

    // Coded by hand only so that `format` travels as its raw value without OutputFormat itself
    // having to be Codable here.
    private enum CodingKeys: String, CodingKey {
        case format, width, height, quality, encodes, passedThrough, warnings
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .format)
        guard let format = OutputFormat(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "unknown format '\(name)'")
        }
        self.init(format: format, width: try container.decode(Int.self, forKey: .width),
                  height: try container.decode(Int.self, forKey: .height),
                  quality: try container.decodeIfPresent(Int.self, forKey: .quality),
                  encodes: try container.decode(Int.self, forKey: .encodes),
                  passedThrough: try container.decode(Bool.self, forKey: .passedThrough),
                  warnings: try container.decode([String].self, forKey: .warnings))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format.rawValue, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encodeIfPresent(quality, forKey: .quality)
        try container.encode(encodes, forKey: .encodes)
        try container.encode(passedThrough, forKey: .passedThrough)
        try container.encode(warnings, forKey: .warnings)
    }
}
