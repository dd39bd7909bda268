/// A manifest's key: an input's path, compared as the bytes of the file name. Swift's `==` on String
/// would take `café` in NFC and in NFD, two files on Linux, for one source and give them one entry.
public struct ManifestSource: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// As RawPath keeps paths: a byte that is not UTF-8 is an escape scalar.
    public let path: String
    private let bytes: [UInt8]

    public init(_ path: String) {
        self.path = path
        bytes = RawPath.bytes(path)
    }

    public init(stringLiteral path: String) { self.init(path) }

    public var description: String { path }

    public static func == (a: Self, b: Self) -> Bool { a.bytes == b.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
    /// By bytes, as the document's keys are sorted.
    public static func < (a: Self, b: Self) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
