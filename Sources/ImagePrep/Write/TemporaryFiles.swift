import Foundation
import Synchronization

/// Every temporary file this process has open (`.NAME.imgprep-XXXXXX`, renamed into place when complete),
/// so a signal can remove them all before the process ends, even while a write is blocked. Creation and
/// removal share one lock: once `removeAll` has run, no new temporary file can appear.
public enum TemporaryFiles {
    private static let state = Mutex(State())

    private struct State {
        var paths = Set<[UInt8]>()
        var closed = false
    }

    /// mkstemp(3) on `template` (a path ending in XXXXXX), remembered until `forget`. Returns the
    /// descriptor and the file's path, or nil with errno set (EINTR when the process is ending).
    static func create(template: String) -> (fd: Int32, path: String)? {
        state.withLock { state -> (Int32, String)? in
            guard !state.closed else {
                errno = EINTR
                return nil
            }
            var bytes = (RawPath.bytes(template) + [0]).map { CChar(bitPattern: $0) }
            let fd = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // never empty: the NUL
            guard fd >= 0 else { return nil }
            let raw = bytes.dropLast().map { UInt8(bitPattern: $0) }
            state.paths.insert(raw)
            return (fd, RawPath.decode(raw))
        }
    }

    /// The file was renamed into place or removed: nothing to clean up for it any more.
    static func forget(_ path: String) {
        _ = state.withLock { $0.paths.remove(RawPath.bytes(path)) }
    }

    /// Removes every temporary file still open and refuses new ones: the process is about to end.
    public static func removeAll() {
        state.withLock { state in
            state.closed = true
            for path in state.paths {
                _ = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { unlink($0.baseAddress!) } }
            }
            state.paths.removeAll()
        }
    }
}
