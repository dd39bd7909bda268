/// The output formats imgprep writes: the value settings, JSON and the cache key name a format by.
/// Everything else about a format comes from its writer (`Formats.writers`).
/// A struct rather than an enum so that a new format is declared in its own folder (`static let`
/// beside its writer) and listed once in `Formats.writers`, with no case to add here.
public struct OutputFormat: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    public let rawValue: String

    /// Only the names of registered writers: an unknown name in a cache entry or a test is nil.
    public init?(rawValue: String) {
        guard Formats.writers.contains(where: { $0.format.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    /// For a writer's own `static let`.
    init(declaring name: String) { rawValue = name }

    /// Every format a writer is registered for, in help's order.
    public static var allCases: [OutputFormat] { Formats.writers.map(\.format) }

    public var description: String { rawValue }

    public var writer: any ImageFormatWriter { Formats.writer(for: self) }

    /// The extension outputs get (`IMG_1.HEIC` → `IMG_1.jpg`).
    public var fileExtension: String { fileExtensions.first ?? rawValue }

    /// Every extension that names this format, any letter case (`-o out.jpeg` is a JPEG file).
    public var fileExtensions: [String] { writer.fileExtensions }

    /// The format a file name's extension names, or nil.
    public init?(fileExtensionOf path: String) {
        let name = OutputNaming.lastComponent(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard let format = OutputFormat.allCases.first(where: { $0.fileExtensions.contains(ext) }) else { return nil }
        self = format
    }

    /// The format a name given to `--to` names, any letter case (`jpg` is `jpeg`), or nil.
    public init?(name: String) {
        guard let format = OutputFormat.allCases.first(where: { $0.writer.names.contains(name.lowercased()) }) else { return nil }
        self = format
    }

    /// `--quality` when none is given: what libvips, sharp, cwebp and heif-enc default to.
    public var defaultQuality: Int { writer.defaultQuality }
}

/// Where an input's output goes, decided from paths alone.
public enum OutputNaming {
    /// The output path for `input`: next to it with the new extension, or in `directory`, keeping the
    /// input's path relative to `relativeTo` (the tree below a `-r` directory argument) when given.
    public static func outputPath(for input: String, format: OutputFormat, directory: String?, relativeTo root: String? = nil) -> String {
        let renamed = replacingExtension(of: input, with: format.fileExtension)
        guard let directory else { return renamed }
        var relative = lastComponent(of: renamed)
        if let root, let sub = relativePath(of: renamed, under: root) { relative = sub }
        return join(directory, relative)
    }

    public static func replacingExtension(of path: String, with ext: String) -> String {
        let name = lastComponent(of: path)
        let directoryPart = path.dropLast(name.count)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + "." + ext }
        return directoryPart + name[..<dot] + "." + ext
    }

    static func lastComponent(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    static func relativePath(of path: String, under root: String) -> String? {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Collapses `.`, `..` and repeated slashes, purely lexically.
    public static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
