import Foundation
import ImagePrep
import Synchronization

/// Standard output or standard error, written with write(2). FileHandle.write traps when a write
/// fails; here a failed write (the reader of a pipe went away, a full disk, `> /dev/full`) ends that
/// stream's output and nothing else: the batch goes on and the exit status still reflects the files.
/// SIGPIPE is ignored (see `StandardStream.prepareProcess`), so a closed pipe shows up as EPIPE.
final class StandardStream: Sendable {
    static let output = StandardStream(STDOUT_FILENO, name: "standard output")
    static let error = StandardStream(errorDescriptor, name: "standard error")
    /// A copy of descriptor 2 made at first use (after `prepareProcess`): imgprep's messages go through
    /// it, so they still reach the user while descriptor 2 points at /dev/null (StandardErrorQuieter).
    static let errorDescriptor: Int32 = {
        let copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)   // close-on-exec: children get descriptor 2 itself
        return copy >= 0 ? copy : STDERR_FILENO
    }()

    private let descriptor: Int32
    private let name: String
    /// Held while writing, so lines from concurrent callers never interleave; true once a write failed.
    private let failed = Mutex(false)

    private init(_ descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    func write(_ text: String) { write(RawPath.bytes(text)) }

    func write(_ bytes: [UInt8]) {
        let problem: Int32? = failed.withLock { failed in
            guard !failed, !bytes.isEmpty else { return nil }
            guard let code = writeAll(bytes) else { return nil }
            failed = true
            return code
        }
        // A reader that stops reading (`| head -1`) is normal use, not worth a line; anything else is.
        if let problem, problem != EPIPE, self !== StandardStream.error {
            StandardStream.error.write("imgprep: cannot write to \(name) (\(String(cString: strerror(problem)))); its output stops here, the files are still processed\n")
        }
    }

    /// All of `bytes` (a picture on standard output), or the errno that stopped them.
    func writeWhole(_ bytes: [UInt8]) -> Int32? {
        failed.withLock { failed in
            guard !failed else { return EPIPE }
            let code = writeAll(bytes)
            if code != nil { failed = true }
            return code
        }
    }

    /// nil when every byte was written, else the errno that stopped it.
    private func writeAll(_ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)  // non-empty
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && errno == EAGAIN {
                    // A descriptor inherited in non-blocking mode: wait until it takes more.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 1000)
                } else {
                    return written < 0 ? errno : EIO
                }
            }
            return nil
        }
    }

    /// Run once at start-up, before any file is opened. Ignores SIGPIPE, and gives a closed standard
    /// descriptor /dev/null: otherwise the first file imgprep opens would get its number, and the
    /// report would be written into an output image.
    static func prepareProcess() {
        signal(SIGPIPE, SIG_IGN)
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 {
            _ = open("/dev/null", O_RDWR)  // takes the lowest free number: this one
        }
    }
}

/// `-` among the files `info` and `compare` read: the picture on standard input.
enum StandardInput {
    /// `-` may be given once (standard input is read to its end), and not from a terminal, where nothing
    /// would come until the user typed a picture.
    static func check(_ paths: [String], command: String) throws {
        let see = "see 'imgprep \(command) --help'"
        guard paths.contains("-") else { return }
        if paths.count(where: { $0 == "-" }) > 1 {
            throw UsageError(description: "- (standard input) can be read once; give the other picture as a file; \(see)")
        }
        if isatty(STDIN_FILENO) != 0 {
            throw UsageError(description: "- reads the picture from standard input, which is a terminal; pipe a file in (< photo.heic); \(see)")
        }
    }

    /// The file at `path`, or for `-` everything on standard input, bounded as a file is.
    static func readFileOr(_ path: String) throws -> [UInt8] {
        path == "-" ? try InputFile.readStream(STDIN_FILENO) : try InputFile.read(path)
    }
}
