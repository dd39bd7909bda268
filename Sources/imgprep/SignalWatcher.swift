import Foundation
import ImagePrep
import Synchronization

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the batch: the `onSignal` body cancels it (no new file starts, files in
/// flight are discarded, their temporary files removed) and the run exits 128 + the signal's number
/// (130, 143, 129, 131). Whatever the batch is doing, the process ends within a second: if the batch has
/// not wound down by then (a thread stuck in a read of a pipe, a second signal), the temporary files
/// are removed here and the process exits at once.
final class SignalWatcher {
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// How long the batch has to finish its own way (report what was done) before it is ended.
    static let grace = 0.8

    private let first = SharedState()

    private final class SharedState: Sendable {
        let value = Atomic<Int32>(0)
        /// What stops the batch, set once there is one; a signal before that just ends the process.
        let stop = Mutex<(@Sendable () -> Void)?>(nil)
        /// What to say when the batch did not wind down in time (the summary so far).
        let lastWords = Mutex<(@Sendable (Int32) -> Bool)?>(nil)
    }

    /// The first signal that arrived, or SIGINT if none did.
    var received: Int32 {
        let value = first.value.load(ordering: .relaxed)
        return value == 0 ? SIGINT : value
    }

    /// Installed first thing, so a signal while the list or the cache is being opened ends the run too.
    /// The handlers are in place when this returns (sigaction, not libdispatch's sources, which register
    /// later on its own thread: a signal in between was lost); a thread of its own reads them, so a pool of
    /// threads all blocked in system calls cannot delay it.
    init() {
        guard let signals = SignalPipe.install(Self.handled) else { return }
        Thread.detachNewThread { [first] in
            guard let signalNumber = SignalPipe.next(from: signals) else { return }
            first.value.store(signalNumber, ordering: .relaxed)
            first.stop.withLock { $0 }?()
            _ = SignalPipe.next(from: signals, within: Self.grace)  // a second signal: no more waiting
            Self.end(signalNumber, first)
        }
    }

    /// From now on a signal calls `body` (cancel the batch, kill the workers) before the grace period,
    /// and `lastWords` (print the summary so far) if the process must be ended after it.
    /// `lastWords` returns false when the batch has already begun its own summary: the process is
    /// ending anyway, and cutting it short would cut that summary.
    func onSignal(_ body: @escaping @Sendable () -> Void, lastWords: @escaping @Sendable (Int32) -> Bool) {
        first.lastWords.withLock { $0 = lastWords }
        first.stop.withLock { $0 = body }
        if first.value.load(ordering: .relaxed) != 0 { body() }
    }

    /// Removes the temporary files and ends the process now, with the status of the first signal (unless
    /// the batch is already printing its summary and exiting).
    private static func end(_ signalNumber: Int32, _ state: SharedState) {
        if let lastWords = state.lastWords.withLock({ $0 }) {
            guard lastWords(signalNumber) else { return }
        } else {
            StandardStream.error.write("imgprep: interrupted by \(name(signalNumber))\n")
        }
        TemporaryFiles.removeAll()
        _exit(128 + signalNumber)
    }

    /// Who says the run's last words when a signal ends it: the command on its way out, or the forced
    /// end after the grace period. The first to `take` it; the other stays quiet.
    final class Claim: Sendable {
        private let taken = Atomic<Bool>(false)
        func take() -> Bool { taken.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged }
    }

    static func name(_ signalNumber: Int32) -> String {
        [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"][signalNumber] ?? "signal \(signalNumber)"
    }

}
