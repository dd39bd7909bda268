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

    /// The same from a task, without blocking a thread of Swift's pool while it polls. The deadline is
    /// long: Swift's pool has a thread per core (two here), and the synchronous tests running beside
    /// this one can hold both for minutes (each waits on a process), so a task, and the work it waits
    /// for, may not run at all for that long: a 60 s deadline failed so in a full run on two cores.
    static func waitUntil(seconds: Double = 900, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))  // the polling interval
        }
        return true
    }
}
