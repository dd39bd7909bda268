import Foundation

/// Paths as a manifest writes them: relative to the manifest's folder, `/`-separated.
public enum ManifestPaths {
    /// `path` relative to `directory` (both relative to the working directory unless absolute).
    public static func relative(_ path: String, from directory: String) -> String {
        let from = components(absolute(directory)), to = components(absolute(path))
        var common = 0
        while common < from.count, common < to.count - 1, RawPath.bytes(String(from[common])) == RawPath.bytes(String(to[common])) { common += 1 }
        return (Array(repeating: "..", count: from.count - common) + to[common...]).joined(separator: "/")
    }

    /// The manifest's key for an input: its path as given, or relative to its `-r` root.
    public static func key(input: String, root: String?) -> String {
        guard let root, let relative = OutputNaming.relativePath(of: input, under: root) else { return input }
        return OutputNaming.normalize(relative)
    }

    static func absolute(_ path: String) -> String {
        OutputNaming.normalize(path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
    }

    static func components(_ path: String) -> [Substring] { path.split(separator: "/") }
}
