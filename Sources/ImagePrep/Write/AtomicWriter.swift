import Foundation

/// Writes a whole file or nothing: the bytes go to a temporary file in the destination directory,
/// which is then renamed over the destination. Readers never see a partial file under the real name.
public enum AtomicWriter {
    /// - Parameters:
    ///   - permissionsFrom: copy this file's mode (for in-place replacement); otherwise 0644 less the umask.
    ///   - modificationTime: set on the result before it becomes visible (`--preserve-mtime`).
    ///   - durable: flush the file before the rename and the directory after, so that after a power cut
    ///     the destination holds either the old bytes or the new ones (an in-place replacement of the
    ///     user's only copy); outputs that can be made again skip the cost.
    public static func write(_ bytes: [UInt8], to path: String, permissionsFrom: String? = nil,
                             modificationTime: FileTimestamp? = nil, durable: Bool = false) throws {
        let (directory, name) = RawPath.split(path)
        let directoryPath = directory.isEmpty ? "." : directory
        try RawPath.createDirectories(directoryPath)

        guard let (fd, temporary) = TemporaryFiles.create(template: "\(directoryPath)/.\(name).imgprep-XXXXXX") else {
            throw ioError("cannot create a temporary file in \(directoryPath)")
        }
        var renamed = false
        defer {
            if !renamed { _ = RawPath.withCString(temporary) { unlink($0) } }
            TemporaryFiles.forget(temporary)
        }
        do {
            var stillOpen = true
            defer { if stillOpen { close(fd) } }
            try writeAll(fd, bytes)
            var mode: mode_t = 0o666 & ~processUmask
            if let source = permissionsFrom, let info = RawPath.status(source) {
                mode = info.st_mode & 0o7777
            }
            guard fchmod(fd, mode) == 0 else { throw ioError("cannot set the permissions of \(path)") }
            if let modificationTime {
                let time = timespec(tv_sec: modificationTime.seconds, tv_nsec: modificationTime.nanoseconds)
                var times = [time, time]
                guard futimens(fd, &times) == 0 else { throw ioError("cannot set the modification time of \(path)") }
            }
            if durable { guard fsync(fd) == 0 else { throw ioError("cannot write \(path)") } }
            stillOpen = false
            // close reports write errors some file systems (NFS) only find at the end.
            guard close(fd) == 0 else { throw ioError("cannot write \(path)") }
        }
        let moved = RawPath.withCString(temporary) { from in RawPath.withCString(path) { to in rename(from, to) } }
        guard moved == 0 else { throw ioError("cannot write \(path)") }
        renamed = true
        if durable { try syncDirectory(directoryPath) }
    }

    /// fsync(2) on a directory makes a rename in it survive a power cut.
    private static func syncDirectory(_ directory: String) throws {
        let fd = RawPath.withCString(directory) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw ioError("cannot flush the directory \(directory)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ioError("cannot flush the directory \(directory)") }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        guard FileDescriptorIO.writeAll(fd, bytes) else { throw ioError("cannot write the output") }
    }

    /// umask can only be read by setting it, so it is read once, before any worker writes.
    private static let processUmask: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }()

    private static func ioError(_ what: String) -> ImagePrepError {
        ImagePrepError(.io, "\(what): \(String(cString: strerror(errno)))")
    }
}

/// A file's modification time to the nanosecond: a `Date` (a Double) would round it, and then
/// `--update` and make would see outputs older than their inputs.
public struct FileTimestamp: Sendable, Comparable {
    public var seconds: Int
    public var nanoseconds: Int

    /// The modification time of `path`, or nil if it cannot be read.
    public init?(modificationOf path: String) {
        guard let info = RawPath.status(path) else { return nil }
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
    }

    public static func < (a: FileTimestamp, b: FileTimestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }
}
