import Dispatch
import Synchronization

/// Hands values from a producer thread to an async consumer, at most `capacity` ahead: `send` blocks
/// the producer while the buffer is full, so a fast producer (a long list on a pipe) cannot fill
/// memory faster than the batch works through it.
final class BoundedChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var cancelled = false
        var waiting: CheckedContinuation<Element?, Never>?
    }

    private let state = Mutex(State())
    private let space: DispatchSemaphore
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        space = DispatchSemaphore(value: self.capacity)
    }

    // libdispatch traps when a semaphore is freed with a value below its initial one, as it is while
    // values wait unread; nothing waits on it by now (a producer holds the channel while it runs).
    deinit { for _ in 0..<capacity { space.signal() } }

    /// A channel holding `elements`, already finished.
    init(_ elements: [Element]) {
        capacity = 1
        space = DispatchSemaphore(value: 1)
        state.withLock { $0.buffer = elements; $0.finished = true }
    }

    /// Every value has been sent (some may still wait unread).
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Finished, and every value taken: nothing more will come.
    var isDrained: Bool { state.withLock { $0.finished && $0.head == $0.buffer.count } }

    /// Blocks while `capacity` values wait unread. Call from a thread that may block.
    func send(_ element: Element) {
        if isCancelled { return }
        space.wait()
        let consumer = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            if state.cancelled { return nil }
            if let waiting = state.waiting {
                state.waiting = nil
                return waiting
            }
            state.buffer.append(element)
            return nil
        }
        if let consumer {
            space.signal()   // handed straight over: it never took a place in the buffer
            consumer.resume(returning: element)
        }
    }

    /// No more values: the consumer gets nil once the buffer is empty.
    func finish() {
        let consumer = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiting = nil }
            return state.buffer.count == state.head ? state.waiting : nil
        }
        consumer?.resume(returning: nil)
    }

    /// The consumer wants no more: `next` returns nil from now on and `send` no longer blocks.
    func cancel() {
        let consumer = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.cancelled = true
            defer { state.waiting = nil }
            return state.waiting
        }
        space.signal()   // a producer blocked in `send` wakes, sees the cancellation and returns
        consumer?.resume(returning: nil)
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The next value, or nil after `finish` and the last value. One consumer at a time.
    func next() async -> Element? {
        await withCheckedContinuation { continuation in
            let ready: Element?? = state.withLock { state in
                if state.cancelled { return .some(nil) }
                if state.head < state.buffer.count {
                    let element = state.buffer[state.head]
                    state.head += 1
                    if state.head > 1024 && state.head * 2 > state.buffer.count {   // compact now and then
                        state.buffer.removeFirst(state.head)
                        state.head = 0
                    }
                    return .some(element)
                }
                if state.finished { return .some(nil) }
                state.waiting = continuation
                return nil
            }
            if let ready {
                if ready != nil { space.signal() }   // a pre-filled channel's extra signals are harmless
                continuation.resume(returning: ready)
            }
        }
    }
}
