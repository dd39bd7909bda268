import Foundation

/// Writes a whole file or nothing: the bytes go to a temporary file in the destination directory,
/// which is then renamed over the destination. Readers never see a partial file under the real name.
public enum AtomicWriter {
    /// - Parameters:
    ///   - permissionsFrom: copy this file's mode (for in-place replacement); otherwise 0644 less the umask.
    ///   - modificationTime: set on the result before it becomes visible (`--preserve-mtime`).
    public static func write(_ bytes: [UInt8], to path: String, permissionsFrom: String? = nil,
                             modificationTime: FileTimestamp? = nil) throws {
        let (directory, name) = RawPath.split(path)
        let directoryPath = directory.isEmpty ? "." : directory
        try RawPath.createDirectories(directoryPath)

        var template = (RawPath.bytes("\(directoryPath)/.\(name).imgprep-XXXXXX") + [0]).map { CChar(bitPattern: $0) }
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // never empty: the NUL
        guard fd >= 0 else { throw ioError("cannot create a temporary file in \(directoryPath)") }
        let temporary = RawPath.decode(template.dropLast().map { UInt8(bitPattern: $0) })
        var renamed = false
        defer {
            if !renamed { _ = RawPath.withCString(temporary) { unlink($0) } }
        }
        do {
            defer { close(fd) }
            try writeAll(fd, bytes)
            var mode: mode_t = 0o666 & ~processUmask
            if let source = permissionsFrom, let info = RawPath.status(source) {
                mode = info.st_mode & 0o7777
            }
            fchmod(fd, mode)
            if let modificationTime {
                let time = timespec(tv_sec: modificationTime.seconds, tv_nsec: modificationTime.nanoseconds)
                var times = [time, time]
                futimens(fd, &times)
            }
        }
        let moved = RawPath.withCString(temporary) { from in RawPath.withCString(path) { to in rename(from, to) } }
        guard moved == 0 else { throw ioError("cannot write \(path)") }
        renamed = true
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
