/// A library whose version, as loaded, decides output bytes. Format readers and writers name the ones
/// they depend on; the cache key and `--version` list them from there.
public struct CodecLibrary: Sendable {
    public let name: String
    /// Asked at run time: the library this process loaded, not the one it was built against.
    public let version: @Sendable () -> String

    public init(_ name: String, version: @escaping @Sendable () -> String) {
        self.name = name
        self.version = version
    }

    /// `libraries` once each, in first-seen order.
    static func unique(_ libraries: [CodecLibrary]) -> [CodecLibrary] {
        var seen: Set<String> = []
        return libraries.filter { seen.insert($0.name).inserted }
    }
}
