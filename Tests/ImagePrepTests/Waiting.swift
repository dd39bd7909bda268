import Foundation

/// Waits on a condition, never on a guess of how long something takes: poll until it holds, with a
/// deadline far past any machine's speed so that a condition that never comes fails the test, not hangs it.
extension TestSupport {
    /// True once `condition` holds, false when `seconds` passed first.
    static func waitUntil(seconds: Double = 60, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.002)  // the polling interval, not a wait for something to happen
        }
        return true
    }

    /// The same from a task, without blocking a thread of Swift's pool while it polls. The deadline counts
    /// the waiter's own looks, not the clock: Swift's pool has a thread per core (two here), and the
    /// synchronous tests beside this one can hold every thread for many minutes (each waits on a
    /// process), so neither this task nor the work it waits for may run at all for that long. A clock
    /// deadline (even 900 s) failed so in full runs on a busy two-core machine; 100,000 looks a
    /// millisecond apart take at least 100 s of this task's own turns, while the work had turns too.
    static func waitUntil(looks: Int = 100_000, _ condition: () -> Bool) async -> Bool {
        for _ in 0..<looks {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))  // the polling interval
        }
        return condition()
    }
}
