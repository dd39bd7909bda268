import Glibc
import ImagePrep
import Synchronization

/// Points descriptor 2 at /dev/null while a chatty C library runs (see LibraryChatter), so a damaged
/// file gets imgprep's one line and not libjxl's too; imgprep's own messages go through the copy
/// StandardStream keeps. Concurrent calls nest: the first to begin silences, the last to end restores.
final class StandardErrorQuieter: LibraryChatterQuieter {
    private let null: Int32
    private let depth = Mutex(0)

    private init(null: Int32) { self.null = null }

    /// Run once at start-up, in the CLI and in workers alike.
    static func install() {
        guard StandardStream.errorDescriptor != STDERR_FILENO else { return }   // no copy: nothing may be silenced
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard null >= 0 else { return }
        LibraryChatter.install(StandardErrorQuieter(null: null))
    }

    func begin() {
        depth.withLock { depth in
            if depth == 0 { _ = dup2(null, STDERR_FILENO) }
            depth += 1
        }
    }

    func end() {
        depth.withLock { depth in
            depth -= 1
            if depth == 0 { _ = dup2(StandardStream.errorDescriptor, STDERR_FILENO) }
        }
    }

    func unquieted(_ body: () -> Void) {
        depth.withLock { depth in
            if depth > 0 { _ = dup2(StandardStream.errorDescriptor, STDERR_FILENO) }
            body()
            if depth > 0 { _ = dup2(null, STDERR_FILENO) }
        }
    }
}
