import Dispatch
import Foundation
import ImagePrep
import Synchronization

/// SIGINT/SIGTERM stop the batch: `onSignal` cancels it (no new file starts, files in flight are
/// discarded, their temporary files removed) and the run exits 130 or 143.
final class SignalWatcher {
    private let sources: [DispatchSourceSignal]
    private let first = FirstSignal()

    private final class FirstSignal: Sendable {
        let value = Atomic<Int32>(0)
    }

    /// The first signal that arrived (SIGINT → exit 130, SIGTERM → 143), or SIGINT if none did.
    var received: Int32 {
        let value = first.value.load(ordering: .relaxed)
        return value == 0 ? SIGINT : value
    }

    init(onSignal: @escaping @Sendable () -> Void) {
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [first] in
                _ = first.value.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed)
                onSignal()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit { sources.forEach { $0.cancel() } }
}
