import Foundation
import Synchronization

/// `--manifest FILE`: where a batch of web image sets writes its manifest, and how its markup says `sizes`
/// and where the files are served from.
public struct ManifestOptions: Sendable {
    public var path: String
    /// The `sizes` attribute of each `<img>` (the markup the manifest carries).
    public var sizes: String
    /// A URL prefix for the variants' paths (nil: paths relative to the manifest).
    public var baseURL: String?

    public init(path: String, sizes: String, baseURL: String? = nil) {
        self.path = path
        self.sizes = sizes
        self.baseURL = baseURL
    }
}

/// Gathers each set's entry as its outcome arrives, and writes the manifest once the batch is done:
/// keyed and sorted by source, so the bytes do not depend on -j or the order files finished in.
final class ManifestCollector: Sendable {
    let options: ManifestOptions
    private let entries = Mutex<[ManifestSource: ManifestEntry]>([:])
    private let folder: String

    init(_ options: ManifestOptions) {
        self.options = options
        let directory = RawPath.split(options.path).directory
        folder = directory.isEmpty ? "." : directory
    }

    func add(_ outcome: FileOutcome) {
        guard outcome.status == .ok, let set = outcome.set, set.variants.count == outcome.variantPaths.count else { return }
        let variants = zip(set.variants, outcome.variantPaths).map { variant, path in
            ManifestVariant(format: variant.format.rawValue, width: variant.width, height: variant.height, bytes: variant.bytes,
                            path: ManifestPaths.relative(path, from: folder), animated: variant.frames != nil, hdr: variant.gainMap != nil)
        }
        let entry = ManifestEntry(width: set.width, height: set.height, alt: set.alt, color: set.color, placeholder: set.placeholder,
                                  variants: variants, sizes: options.sizes, baseURL: options.baseURL)
        let key = ManifestPaths.key(input: outcome.job.input, root: outcome.job.root)
        entries.withLock { $0[ManifestSource(key)] = entry }
    }

    /// The manifest, written atomically.
    func write() throws {
        let manifest = Manifest(images: entries.withLock { $0 })
        try AtomicWriter.write(manifest.encoded(), to: options.path)
    }
}
