import CImageCodecs
import Foundation
import Synchronization

/// The parent's handle on one worker process: spawned once, fed one file at a time over a pipe.
final class WorkerProcess: Sendable {
    let pid: pid_t
    private let channel: WorkerChannel
    /// The stage its current file reached, for the message when it dies.
    private let stage = Mutex<PipelineStage?>(nil)
    private let started = Atomic<Bool>(false)

    /// Starts `executable` with `arguments` (argv[0] included) and its stdin and stdout on two new
    /// pipes; stderr is shared.
    init(executable: String, arguments: [String]) throws {
        var toWorker: [Int32] = [-1, -1], fromWorker: [Int32] = [-1, -1]
        // Close-on-exec everywhere, so no other worker inherits this one's pipe ends (EOF must mean death).
        guard cic_pipe_cloexec(&toWorker) == 0 else { throw Self.spawnError("pipe") }
        guard cic_pipe_cloexec(&fromWorker) == 0 else {
            close(toWorker[0]); close(toWorker[1])
            throw Self.spawnError("pipe")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toWorker[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fromWorker[1], STDOUT_FILENO)
        let argv = arguments.map { RawPath.bytes($0) + [0] }
        var process: pid_t = 0
        var status: Int32 = 0
        // The worker inherits descriptor 2: the real standard error, not one quieted for a library call.
        LibraryChatter.unquieted {
            status = withCStrings([RawPath.bytes(executable) + [0]] + argv) { path, pointers in
                withCStrings([RawPath.bytes(executable) + [0]] + Self.environment) { _, environment in
                    posix_spawn(&process, path, &actions, nil, Array(pointers.dropFirst()), Array(environment.dropFirst()))
                }
            }
        }
        close(toWorker[0])
        close(fromWorker[1])
        guard status == 0 else {
            close(toWorker[1]); close(fromWorker[0])
            errno = status
            throw Self.spawnError("spawn \(executable)")
        }
        pid = process
        channel = WorkerChannel(readFD: fromWorker[0], writeFD: toWorker[1])
    }

    /// The parent's environment, byte for byte, plus two settings of the worker's own unless the user set them:
    /// - SWIFT_BACKTRACE=enable=no: when a C library crashes a worker, Swift's crash reporter would print
    ///   pages of backtrace into the shared stderr, where the parent reports the death in one line.
    /// - GLIBC_TUNABLES=glibc.malloc.hugetlb=1: glibc advises its mmapped blocks (decoded pictures, the
    ///   metric's prepared original, trials) as transparent huge pages, one fault per 2 MB instead of 512;
    ///   glibc reads it only at a process's start, so it is set here. The device photos at 2048 px, -j 2,
    ///   `--quality auto`: 697,000 page faults without it, 77,000 with it. Bytes unchanged.
    private static let environment: [[UInt8]] = {
        var entries: [[UInt8]] = []
        var own = [("SWIFT_BACKTRACE=", "enable=no"), ("GLIBC_TUNABLES=", "glibc.malloc.hugetlb=1")]
        var entry = environ
        while let pointer = entry.pointee {
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            own.removeAll { bytes.starts(with: Array($0.0.utf8)) }
            entries.append(bytes + [0])
            entry += 1
        }
        return entries + own.map { Array(($0.0 + $0.1).utf8) + [0] }
    }()

    deinit {
        close(channel.readFD)
        close(channel.writeFD)
    }

    /// How one file ended inside the worker.
    enum Result {
        case prepared(PreparedImage)
        case inspected(ImageDescription)
        case failed(ImagePrepError)
        /// The process died or broke the protocol; the stage it had reached.
        case died(stage: PipelineStage?)
        /// The request could not be sent: the worker had died while idle, before it saw this file.
        case unavailable
    }

    /// Blocks until the process has started and said so (its first file's time starts after that);
    /// false when it died first.
    func waitUntilReady() -> Bool {
        if started.load(ordering: .relaxed) { return true }
        guard let frame = try? channel.receive(), case .ready? = try? channel.decode(WorkerReply.self, from: frame) else {
            return false
        }
        started.store(true, ordering: .relaxed)
        return true
    }

    /// Sends one file and blocks until its result, or until the worker dies.
    func perform(_ request: WorkerRequest, on file: [UInt8]) -> Result {
        stage.withLock { $0 = nil }
        do {
            try channel.send(request, payload: file)
        } catch {
            return .unavailable
        }
        do {
            while let frame = try channel.receive() {
                switch try channel.decode(WorkerReply.self, from: frame) {
                case .stage(let reached):
                    stage.withLock { $0 = reached }
                case .ready:
                    break
                case .prepared(var image):
                    image.bytes = frame.payload
                    return .prepared(image)
                case .inspected(let description):
                    return .inspected(description)
                case .failed(let kind, let message, let failedAt):
                    return .failed(ImagePrepError(kind, message, stage: failedAt ?? stage.withLock { $0 }))
                }
            }
        } catch {}
        return .died(stage: stage.withLock { $0 })
    }

    /// SIGKILL: for a timeout, or when the batch stops.
    func kill() { _ = Foundation.kill(pid, SIGKILL) }

    /// Waits for the process to end (after `kill`, or once its pipe broke) and says how it ended.
    func reap() -> String {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        if signal != 0 { return "killed by \(Self.signalName(signal))" }
        return "exited with status \((status >> 8) & 0xFF)"
    }

    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGABRT: "SIGABRT", SIGILL: "SIGILL",
                                      SIGTRAP: "SIGTRAP", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM",
                                      SIGINT: "SIGINT", SIGPIPE: "SIGPIPE", SIGXCPU: "SIGXCPU"]
        return names[signal] ?? "signal \(signal)"
    }

    private static func spawnError(_ what: String) -> ImagePrepError {
        ImagePrepError(.io, "cannot start a worker process (\(what)): \(String(cString: strerror(errno)))")
    }
}

/// Runs `body` with `strings` (NUL-terminated bytes) as a NULL-terminated C array.
private func withCStrings<R>(_ strings: [[UInt8]], _ body: (UnsafeMutablePointer<CChar>, [UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { bytes -> UnsafeMutablePointer<CChar> in
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
        return pointer
    }
    defer { pointers.forEach { $0.deallocate() } }
    return body(pointers[0], pointers + [nil])   // strings holds at least the executable
}
