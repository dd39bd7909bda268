import Foundation

/// Opens a file imgprep did not create itself (an input, a list, a cache entry) without ever waiting:
/// a FIFO put where a file was expected would block `open` until a writer came, past every timeout and
/// signal. The file is opened with O_NONBLOCK, checked with fstat, and refused unless it is a regular
/// file; O_NONBLOCK is then cleared so reads behave as usual.
public enum RegularFile {
    /// Why a path was not opened.
    public enum Refusal: Error, CustomStringConvertible, Equatable {
        /// open(2) or fstat(2) failed with this errno.
        case failed(Int32)
        /// It is not a regular file; the text names what it is ("a FIFO or pipe").
        case notRegular(String, mode_t)

        public var description: String {
            switch self {
            case .failed(let code): String(cString: strerror(code))
            case .notRegular(let what, _): "not a regular file (\(what))"
            }
        }
    }

    /// The open descriptor (the caller closes it) and its fstat.
    /// - Parameter followLinks: false adds O_NOFOLLOW (a cache entry is never a link).
    public static func open(_ path: String, followLinks: Bool = true) -> Result<(fd: Int32, info: stat), Refusal> {
        let flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (followLinks ? 0 : O_NOFOLLOW)
        let fd = RawPath.withCString(path) { Foundation.open($0, flags) }
        guard fd >= 0 else { return .failure(.failed(errno)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            return .failure(.failed(code))
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(fd)
            return .failure(.notRegular(describe(type), type))
        }
        let current = fcntl(fd, F_GETFL)
        if current >= 0 { _ = fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
        return .success((fd, info))
    }

    /// What a file type is, in words, for error lines.
    public static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO or pipe"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a plain file"
        }
    }
}
