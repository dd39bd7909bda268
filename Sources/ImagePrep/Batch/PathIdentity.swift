import Foundation

/// Which file a path names, whatever way it is written (`s/x.heic`, `./s//x.heic`, `$PWD/s/x.heic`, through
/// a symbolic link to its folder): an absolute path with the links resolved, compared as bytes. A part
/// that does not exist yet (an output folder) is kept as written, below its deepest existing ancestor.
enum PathIdentity {
    /// The file the path leads to, its last link followed too: what reading it reads.
    static func file(_ path: String) -> String {
        if let resolved = RawPath.resolved(path) { return resolved }
        let absolute = absolute(path)
        let (directory, name) = RawPath.split(absolute)
        guard !name.isEmpty, directory != absolute else { return absolute }
        return OutputNaming.join(file(directory), name)
    }

    /// The directory entry the path names, its last component not followed: what renaming a file to
    /// the path replaces (a link itself, not its target).
    static func entry(_ path: String) -> String {
        let absolute = absolute(path)
        let (directory, name) = RawPath.split(absolute)
        guard !name.isEmpty, directory != absolute else { return absolute }
        return OutputNaming.join(file(directory), name)
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
