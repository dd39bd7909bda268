import Foundation

/// What a cache hit needs besides the output bytes to report the file as if it had been converted: the
/// whole `PreparedImage` the pipeline returned, less its bytes. Stored whole (not field by field) so a
/// field added to the result is never silently dropped from hits.
public struct CachedOutput: Sendable, Codable {
    /// The result as prepared, with `bytes` empty.
    public var summary: PreparedImage

    public var format: OutputFormat { summary.format }
    public var width: Int { summary.width }
    public var height: Int { summary.height }

    /// What to remember of a freshly prepared image.
    public init(_ prepared: PreparedImage) {
        summary = prepared
        summary.bytes = []
    }

    /// The cached output as the pipeline would have returned it, with no encodes spent this time.
    public func preparedImage(bytes: [UInt8]) -> PreparedImage {
        var image = summary
        image.bytes = bytes
        image.encodes = 0
        image.probes = 0
        return image
    }
}

extension CachedOutput: Equatable {
    /// Equal when they would be stored alike.
    public static func == (a: CachedOutput, b: CachedOutput) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(a.summary)) == (try? encoder.encode(b.summary))
    }
}
