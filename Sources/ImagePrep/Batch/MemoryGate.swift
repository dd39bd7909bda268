import Synchronization

/// Admits files while the memory they are estimated to need, together, fits a budget. A file bigger
/// than the whole budget runs alone. First come, first served, so a big file is never starved by
/// small ones behind it.
final class MemoryGate: Sendable {
    let budget: Int

    private struct Waiter {
        var estimate: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var used = 0
        var inFlight = 0
        var waiting: [Waiter] = []
        var open = false   // after `openAll`, everyone passes (the batch is stopping)
    }

    private let state = Mutex(State())

    init(budget: Int) { self.budget = max(1, budget) }

    /// Returns once `estimate` bytes fit (or nothing else is running); pair with `release`.
    func admit(_ estimate: Int) async {
        await withCheckedContinuation { continuation in
            let admitted = state.withLock { state -> Bool in
                if state.waiting.isEmpty && (state.open || fits(estimate, state)) {
                    state.used += estimate
                    state.inFlight += 1
                    return true
                }
                state.waiting.append(Waiter(estimate: estimate, continuation: continuation))
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    func release(_ estimate: Int) {
        let ready = state.withLock { state -> [Waiter] in
            state.used -= estimate
            state.inFlight -= 1
            return admitWaiting(&state)
        }
        ready.forEach { $0.continuation.resume() }
    }

    /// Lets every waiting and future file through: used when the batch stops, so no task waits for ever.
    func openAll() {
        let ready = state.withLock { state -> [Waiter] in
            state.open = true
            return admitWaiting(&state)
        }
        ready.forEach { $0.continuation.resume() }
    }

    /// Bytes admitted and not yet released (for tests).
    var used: Int { state.withLock { $0.used } }

    private func fits(_ estimate: Int, _ state: State) -> Bool {
        state.inFlight == 0 || state.used + estimate <= budget
    }

    private func admitWaiting(_ state: inout State) -> [Waiter] {
        var ready: [Waiter] = []
        while let first = state.waiting.first, state.open || fits(first.estimate, state) {
            state.waiting.removeFirst()
            state.used += first.estimate
            state.inFlight += 1
            ready.append(first)
        }
        return ready
    }
}
