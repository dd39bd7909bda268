/// What a set's preparation returns beside its bytes: `PreparedImage.bytes` holds every variant's
/// file end to end, in `variants`' order, so the worker protocol, the cache and duplicates carry a
/// set exactly as they carry one output.
public struct PreparedSet: Sendable, Codable, Equatable {
    /// Formats in `--to` order, each one's widths ascending.
    public var variants: [PreparedVariant]
    /// The source's upright size.
    public var width: Int, height: Int
    /// ImageCaption.text of the source's metadata.
    public var alt: String
    /// DominantColor.hex of the upright sRGB reduction.
    public var color: String
    public var placeholder: Placeholder?
    /// The part of the upright source used, for `--fit cover`.
    public var crop: CropWindow?

    /// Each variant's bytes cut out of `bytes` (nil when the lengths do not add up to it).
    public func files(in bytes: [UInt8]) -> [[UInt8]]? {
        var files: [[UInt8]] = []
        var offset = 0
        for variant in variants {
            guard variant.bytes >= 0, variant.bytes <= bytes.count - offset else { return nil }
            files.append(Array(bytes[offset..<offset + variant.bytes]))
            offset += variant.bytes
        }
        return offset == bytes.count ? files : nil
    }
}

public struct PreparedVariant: Sendable, Codable, Equatable {
    public var format: OutputFormat
    public var width: Int, height: Int
    public var bytes: Int
    public var quality: Int?
    /// The width asked for that this variant answers (nil: the source's own width, added).
    public var requestedWidth: Int?
    public var encodes: Int
    /// The HDR gain map it carries (JPEG's Ultra HDR), read back from its bytes.
    public var gainMap: WrittenGainMap? = nil
    /// Its frames, when it kept the source's animation; nil for a still.
    public var frames: Int? = nil
}
