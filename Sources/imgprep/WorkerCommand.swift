import Glibc
import ImagePrep

/// The hidden command a batch starts its worker processes with (`imgprep __worker`): it reads files to
/// prepare from standard input and answers on standard output, for the parent only.
enum WorkerCommand {
    static let name = "__worker"

    /// Ctrl-C reaches the whole process group: the parent decides what happens to the files in flight
    /// (and kills its workers), so a worker ignores the signals the parent handles.
    static func run() -> Int32 {
        for signalNumber in SignalWatcher.handled { signal(signalNumber, SIG_IGN) }
        return WorkerServer.serve()
    }

    /// A pool of workers running this very binary: /proc/self/exe stays this binary even if the file was
    /// replaced since, and argv[0] is its name, for `ps`.
    static let isolation = BatchRequest.Isolation.workers(
        executable: "/proc/self/exe", arguments: [RawPath.resolved("/proc/self/exe") ?? "imgprep", name])
}
