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
    /// nil for `.none`.
    public static func make(_ kind: PlaceholderKind, from picture: PixelBuffer) throws -> Placeholder? {
        nil  // stub: implemented on the web-set operations branch
    }
}
