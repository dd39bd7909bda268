import Synchronization

/// Admits files while the memory they are estimated to need, together, fits a budget. A file bigger
/// than the whole budget runs alone. First come, first served, so a big file is never starved by
/// small ones behind it. A batch admits each file before reading it (its size and header are known
/// by then), so the input bytes held in this process count too.
public final class MemoryGate: Sendable {
    public let budget: Int

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

    public init(budget: Int) { self.budget = max(1, budget) }

    /// Returns once `estimate` bytes fit, with a ticket that gives them back when its last holder lets go.
    public func ticket(for estimate: Int) async -> Ticket {
        await admit(estimate)
        return Ticket(gate: self, estimate: estimate)
    }

    /// Admitted bytes, held by the file's conversion and, while it runs, by the work it started (an
    /// abandoned in-process pipeline still holds its memory until it ends).
    public final class Ticket: Sendable {
        let gate: MemoryGate
        public let estimate: Int
        private let holders = Atomic<Int>(1)

        init(gate: MemoryGate, estimate: Int) {
            self.gate = gate
            self.estimate = estimate
        }

        /// One more holder, who must call `release` too.
        public func hold() { holders.add(1, ordering: .relaxed) }

        /// The bytes go back to the gate when the last holder releases.
        public func release() {
            if holders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { gate.release(estimate) }
        }
    }

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
    public func openAll() {
        let ready = state.withLock { state -> [Waiter] in
            state.open = true
            return admitWaiting(&state)
        }
        ready.forEach { $0.continuation.resume() }
    }

    /// Bytes admitted and not yet released (for tests).
    public var used: Int { state.withLock { $0.used } }

    /// Files waiting to be admitted (for tests: they wait on this, not on time).
    var waiting: Int { state.withLock { $0.waiting.count } }

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
