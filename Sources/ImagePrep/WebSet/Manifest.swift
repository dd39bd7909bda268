/// `--manifest`: one JSON document describing every picture of a web image set.
public struct Manifest: Sendable, Equatable {
    /// Keyed by the source path as given (relative to its root with `-r`).
    public var images: [ManifestSource: ManifestEntry]

    public init(images: [ManifestSource: ManifestEntry] = [:]) { self.images = images }

    /// The document's bytes: sorted keys, no timestamps, a final newline (same input, same bytes).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        ManifestJSON.object([("images", .object(images.map { ($0.key.path, $0.value.json) }))]).write(into: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// Far above any real set (100,000 pictures of 9 variants are about 200 MB); a bound on what a
    /// hostile file can make us hold.
    public static let maxBytes = 1 << 30

    /// Reads a manifest imgprep wrote; throws on anything else.
    public static func decode(_ bytes: [UInt8]) throws -> Manifest {
        guard bytes.count <= maxBytes else {
            throw ImagePrepError(.tooLarge, "not read as a manifest: \(bytes.count) bytes, over the limit of \(maxBytes)")
        }
        let document: ManifestJSON
        do {
            document = try ManifestJSON.parse(bytes)
        } catch {
            throw ImagePrepError(.corrupt, "not a manifest: invalid JSON at byte \(error.offset): \(error.reason)")
        }
        do {
            let top = try ManifestReader.members(document, ["images"], at: "the document")
            guard case .object(let sources) = top["images"]! else {  // members() checked the key is there
                throw ManifestReader.Refusal(path: "images", reason: "expected an object")
            }
            var images: [ManifestSource: ManifestEntry] = [:]
            for (source, value) in sources {   // distinct as bytes: the reader refuses a key written twice
                images[ManifestSource(source)] = try ManifestEntry(json: value, at: "images[\(ManifestReader.quoted(source))]")
            }
            return Manifest(images: images)
        } catch let refusal as ManifestReader.Refusal {
            throw ImagePrepError(.corrupt, "not a manifest imgprep wrote: \(refusal.path): \(refusal.reason)")
        }
    }

    /// Shards' manifests joined into what one run writes; the same source in two with different entries throws.
    public static func merge(_ manifests: [Manifest]) throws -> Manifest {
        try merge(named: manifests.enumerated().map { ("manifest \($0.offset + 1)", $0.element) })
    }

    /// The same, naming each manifest (its file) in the error.
    public static func merge(named manifests: [(name: String, manifest: Manifest)]) throws -> Manifest {
        var merged = Manifest()
        var origin: [ManifestSource: String] = [:]
        for (name, manifest) in manifests {
            // Sorted so the conflict reported is the same whatever the dictionary's order.
            for (source, entry) in manifest.images.sorted(by: { $0.key < $1.key }) {
                if let existing = merged.images[source] {
                    guard existing == entry else {
                        throw ImagePrepError(.output, "\(ManifestReader.quoted(RawPath.lossy(source.path))) has different entries in \(origin[source] ?? "an earlier manifest") and \(name): were they made with different options?")
                    }
                    continue
                }
                merged.images[source] = entry
                origin[source] = name
            }
        }
        return merged
    }
}

/// One output of a set, as the manifest lists it.
public struct ManifestVariant: Sendable, Equatable, Codable {
    /// The output format's name as `--to` spells it: `avif`, `webp`, `jpeg`, `png`, `heic`, `jxl`.
    public var format: String
    public var width: Int, height: Int, bytes: Int
    /// Relative to the manifest's folder, `/`-separated.
    public var path: String
    /// It kept the source's animation (written only when true).
    public var animated: Bool
    /// It carries an HDR gain map (written only when true).
    public var hdr: Bool

    public init(format: String, width: Int, height: Int, bytes: Int, path: String, animated: Bool = false, hdr: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
        self.path = path
        self.animated = animated
        self.hdr = hdr
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
        self.init(width: width, height: height, alt: alt, color: color, placeholder: placeholder, variants: variants,
                  html: PictureMarkup.html(variants: variants, alt: alt, sizes: sizes, baseURL: baseURL))
    }

    /// An entry as read back, its markup as written.
    public init(width: Int, height: Int, alt: String, color: String, placeholder: Placeholder?,
                variants: [ManifestVariant], html: String) {
        self.width = width
        self.height = height
        self.alt = alt
        self.color = color
        self.placeholder = placeholder
        self.variants = variants
        self.html = html
    }
}
