/// `--manifest`: one JSON document describing every picture of a web image set.
public struct Manifest: Sendable, Equatable {
    /// Keyed by the source path as given (relative to its root with `-r`).
    public var images: [String: ManifestEntry]

    public init(images: [String: ManifestEntry] = [:]) { self.images = images }

    /// The document's bytes: sorted keys, no timestamps, a final newline (same input, same bytes).
    public func encoded() -> [UInt8] { [] }  // stub

    /// Reads a manifest imgprep wrote; throws on anything else.
    public static func decode(_ bytes: [UInt8]) throws -> Manifest { Manifest() }  // stub

    /// Shards' manifests joined into what one run writes; the same source in two with different entries throws.
    public static func merge(_ manifests: [Manifest]) throws -> Manifest { Manifest() }  // stub
}

/// One output of a set, as the manifest lists it.
public struct ManifestVariant: Sendable, Equatable, Codable {
    /// The output format's name as `--to` spells it: `avif`, `webp`, `jpeg`, `png`, `heic`, `jxl`.
    public var format: String
    public var width: Int, height: Int, bytes: Int
    /// Relative to the manifest's folder, `/`-separated.
    public var path: String

    public init(format: String, width: Int, height: Int, bytes: Int, path: String) {
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
        self.path = path
    }
}

/// One source's entry.
public struct ManifestEntry: Sendable, Equatable {
    public var width: Int, height: Int
    public var alt: String
    public var color: String
    public var placeholder: Placeholder?
    /// In `--to` order, each format's widths ascending.
    public var variants: [ManifestVariant]
    public var html: String

    /// `html` is made here by `PictureMarkup.html` from the other values.
    public init(width: Int, height: Int, alt: String, color: String, placeholder: Placeholder?,
                variants: [ManifestVariant], sizes: String, baseURL: String?) {
        self.width = width
        self.height = height
        self.alt = alt
        self.color = color
        self.placeholder = placeholder
        self.variants = variants
        self.html = PictureMarkup.html(variants: variants, alt: alt, sizes: sizes, baseURL: baseURL)
    }
}

/// The `<picture>` for one source's variants.
public enum PictureMarkup {
    /// One `<source type=…>` per format except the last listed (AVIF, then WebP, … in `variants`' order),
    /// each a `w`-descriptor `srcset` with `sizes`; an `<img>` of the last format: `src` its largest variant,
    /// its `srcset`, `sizes`, `width`/`height` of that largest variant, `loading="lazy"`, `decoding="async"`,
    /// `alt`. Every attribute HTML-escaped; URLs are `baseURL` + path, each path segment percent-encoded.
    public static func html(variants: [ManifestVariant], alt: String, sizes: String, baseURL: String?) -> String {
        ""  // stub
    }
}
