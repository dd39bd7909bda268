import Foundation

/// `--placeholder`: what a page shows while a picture loads.
public enum PlaceholderKind: String, Sendable, CaseIterable, Codable {
    case thumbhash, blurhash, lqip, none
}

/// A computed placeholder: its kind and its text (ThumbHash base64, a BlurHash, or a `data:` URI).
public struct Placeholder: Sendable, Equatable, Codable {
    public var kind: PlaceholderKind
    public var value: String

    public init(kind: PlaceholderKind, value: String) {
        self.kind = kind
        self.value = value
    }
}

public enum Placeholders {
    /// The placeholder of `picture` (upright, sRGB, any size: it is reduced here as each kind needs);
    /// nil for `.none`. Throws `.unsupported` for an empty picture (or one whose pixels do not match its size).
    public static func make(_ kind: PlaceholderKind, from picture: PixelBuffer) throws -> Placeholder? {
        let empty = ImagePrepError(.unsupported, "no placeholder for an empty picture (\(picture.width)x\(picture.height))")
        switch kind {
        case .none:
            return nil
        case .thumbhash:
            guard let hash = ThumbHash.hash(of: picture) else { throw empty }
            return Placeholder(kind: .thumbhash, value: Data(hash).base64EncodedString())
        case .blurhash:
            guard let hash = BlurHash.hash(of: picture) else { throw empty }
            return Placeholder(kind: .blurhash, value: hash)
        case .lqip:
            guard let small = LQIP.reduced(picture) else { throw empty }
            let encoded = try LQIP.encoder.encode(.rgb(small), quality: LQIP.quality, metadata: ImageMetadata())
            return Placeholder(kind: .lqip, value: "data:image/\(LQIP.format.rawValue);base64," + Data(encoded).base64EncodedString())
        }
    }
}

/// A WebP about 16 px wide, which the page scales up blurred.
enum LQIP {
    static let width = 16
    /// Caps the height of a tall narrow picture, so the `data:` URI stays small.
    static let maxHeight = 64
    /// Detail is lost to the scaling anyway; this keeps the colours without blocks.
    static let quality = 50
    /// WebP: every browser that reads `<picture>` shows it, and it is the smallest at this size. From the
    /// registry, as shared code reaches every format (`OutputFormat(rawValue:)` is nil only for a name
    /// no writer has).
    static let format = OutputFormat(rawValue: "webp") ?? Formats.defaultOutput
    static var encoder: any ImageEncoding {
        var settings = ConversionSettings()
        settings.format = format
        settings.quality = quality
        return format.writer.encoder(for: settings, context: EncoderContext())
    }

    /// `picture` reduced to `width` px wide (or less: never enlarged), its aspect kept within `maxHeight`.
    static func reduced(_ picture: PixelBuffer) -> PixelBuffer? {
        let (w, h) = (picture.width, picture.height)
        guard picture.isUsable else { return nil }
        var tw = min(width, w)
        var th = BoxGeometry.scale(h, tw, w)
        if th > maxHeight {
            th = min(maxHeight, h)
            tw = min(tw, BoxGeometry.scale(w, th, h))
        }
        return (tw, th) == (w, h) ? picture : resized(picture, width: tw, height: th)
    }
}
