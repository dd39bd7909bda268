import CImageCodecs
import Glibc

/// This process's arguments, found without /proc: a chroot may not mount it, and there Swift's CommandLine
/// sees no arguments at all.
public enum ThisProcess {
    /// argv after the program name, from the bytes the C runtime handed over (see RawPath for non-UTF-8).
    public static let arguments: [String] = {
        let argc = Int(cic_process_argc())
        guard argc > 0, let argv = cic_process_argv() else {
            return CommandLine.arguments.dropFirst().map { $0 }
        }
        return (1..<argc).map { index in
            argv[index].map { RawPath.decode(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? ""
        }
    }()

    /// Whether /proc is mounted. libdispatch's thread pool (under Swift concurrency and Dispatch) reads
    /// /proc/<tid>/stat and traps without it, so nothing that converts or reads images can run then.
    public static var procMounted: Bool { access("/proc/self/stat", R_OK) == 0 }
}
