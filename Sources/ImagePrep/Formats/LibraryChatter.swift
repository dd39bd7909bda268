import Synchronization

/// Some C libraries print their own lines on standard error for a damaged file (libjxl 0.7:
/// `./lib/jxl/decode.cc:2143: missing input`, `JXL_FAILURE: ...`) and have no way to turn that off,
/// while imgprep gives each bad file one line of its own. The library never touches descriptors: a
/// program that owns its standard error installs a quieter, which the calls into such libraries run
/// inside (concurrent calls may nest: a quieter counts them).
public protocol LibraryChatterQuieter: Sendable {
    /// A call into a chatty library begins.
    func begin()
    /// The call begun by the matching `begin` ended.
    func end()
    /// `body` with standard error as it was, no quieting starting meanwhile: a child process started
    /// then inherits the real one.
    func unquieted(_ body: () -> Void)
}

public enum LibraryChatter {
    private static let quieter = Mutex<(any LibraryChatterQuieter)?>(nil)

    /// Installs the process's quieter (once, at start-up, before any file is read).
    public static func install(_ installed: any LibraryChatterQuieter) {
        quieter.withLock { $0 = installed }
    }

    /// `body` with standard error as it was (see `LibraryChatterQuieter.unquieted`).
    static func unquieted(_ body: () -> Void) {
        guard let current = quieter.withLock({ $0 }) else { return body() }
        current.unquieted(body)
    }

    /// `body`, with the installed quieter (if any) around it.
    static func quieted<T>(_ body: () throws -> T) rethrows -> T {
        let current = quieter.withLock { $0 }
        current?.begin()
        defer { current?.end() }
        return try body()
    }
}
