import Foundation

/// Which file a path names, whatever way it is written (`s/x.heic`, `./s//x.heic`, `$PWD/s/x.heic`, through
/// a symbolic link to its folder): an absolute path with the links resolved, compared as bytes. A part
/// that does not exist yet (an output folder) is kept as written, below its deepest existing ancestor.
/// Folders are resolved once and remembered (a list names thousands of files in a few folders), so a
/// file costs one lstat(2), not a realpath(3) of every component.
struct PathIdentity: Sendable {
    /// Keyed by bytes: String equality would take `café` NFC and NFD for one folder.
    private var folders: [[UInt8]: String] = [:]
    /// Enough for the folders of any realistic run; past it the memory starts again.
    private static let rememberedFolders = 4096

    /// The file the path leads to, its last link followed too (what reading it reads), and the entry
    /// it names (see `entry`): the same unless the path is a symbolic link.
    mutating func fileAndEntry(_ path: String) -> (file: String, entry: String) {
        let absolute = Self.absolute(path)
        let entry = entry(absolute)
        guard Self.isSymbolicLink(absolute) else { return (entry, entry) }
        return (RawPath.resolved(absolute) ?? entry, entry)   // a dangling link: the link itself
    }

    /// The directory entry the path names, its last component not followed: what renaming a file to
    /// the path replaces (a link itself, not its target).
    mutating func entry(_ path: String) -> String {
        let absolute = Self.absolute(path)
        let (directory, name) = RawPath.split(absolute)
        guard !name.isEmpty, !directory.utf8.elementsEqual(absolute.utf8) else { return absolute }
        return OutputNaming.join(folder(directory), name)
    }

    /// An absolute, normalised folder path with its links resolved.
    private mutating func folder(_ directory: String) -> String {
        let key = RawPath.bytes(directory)
        if let known = folders[key] { return known }
        let resolved: String
        if let real = RawPath.resolved(directory) {
            resolved = real
        } else {
            let (parent, name) = RawPath.split(directory)
            resolved = name.isEmpty || parent.utf8.elementsEqual(directory.utf8) ? directory : OutputNaming.join(folder(parent), name)
        }
        if folders.count >= Self.rememberedFolders { folders.removeAll() }
        folders[key] = resolved
        return resolved
    }

    /// The path made absolute from the working directory, `.`, `..` and repeated slashes collapsed.
    static func absolute(_ path: String) -> String {
        OutputNaming.normalize(path.hasPrefix("/") ? path : OutputNaming.join(workingDirectory, path))
    }

    /// A batch never changes directory, so once is enough.
    private static let workingDirectory: String = {
        guard let cwd = getcwd(nil, 0) else { return "." }
        defer { free(cwd) }
        return RawPath.decode(UnsafeRawBufferPointer(start: cwd, count: strlen(cwd)))
    }()

    /// Whether the path itself is a symbolic link (lstat).
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return RawPath.withCString(path) { lstat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFLNK
    }
}
