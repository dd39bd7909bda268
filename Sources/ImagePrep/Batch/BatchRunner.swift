import Foundation
import Synchronization

/// What the pool tells the per-file work when it starts a job.
public struct JobContext: Sendable {
    /// Threads this file may use: more when fewer files than cores are left.
    public var threads: Int
}

/// A bounded pool: at most `limit` jobs are in flight at once, however long the list. Jobs start as the
/// source produces them, and each outcome is reported as soon as it is known, even while the source is
/// still waiting for the rest of a list. What a job does is the caller's `work`, so the pool is tested
/// without real images.
public enum BatchRunner {
    /// - Parameter tally: counts each outcome as it is reported, for a caller that must say how far the
    ///   batch got before it returns (a signal's forced end).
    public static func run(_ source: JobSource, limit: Int, failFast: Bool = false, cancellation: CancellationFlag,
                           tally: BatchTally = BatchTally(),
                           work: @escaping @Sendable (BatchJob, JobContext) async -> FileOutcome,
                           onOutcome: @escaping @Sendable (FileOutcome) -> Void) async -> BatchSummary {
        let limit = max(1, limit)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let slots = Slots(limit)
        let stopped = Atomic<Bool>(false)
        let running = Atomic<Int>(0)
        let (outcomes, delivery) = AsyncStream.makeStream(of: FileOutcome.self)
        // The feeder waits for jobs and free slots; the loop below only reports. Finishing takes every
        // slot back, that is, waits until every started job has been reported. Stopping (fail-fast, a
        // signal) cancels the source, so a feeder waiting on an open pipe is not left waiting.
        let feeder = Task {
            while true {
                await slots.take()
                guard !stopped.load(ordering: .relaxed), !cancellation.isCancelled, let job = await source.next() else {
                    slots.give()
                    break
                }
                let inFlight = running.add(1, ordering: .relaxed).newValue
                // Near the end of the list fewer images share the cores, so each may use more threads.
                let sharing = source.isDrained ? inFlight : limit
                let context = JobContext(threads: max(1, cores / max(1, min(limit, sharing))))
                Task { delivery.yield(await work(job, context)) }
            }
            for _ in 0..<limit { await slots.take() }
            delivery.finish()
        }
        for await outcome in outcomes {
            running.subtract(1, ordering: .relaxed)
            defer { slots.give() }
            if cancellation.isCancelled && outcome.status == .failed && outcome.errorKind == .interrupted { continue }
            tally.add(outcome)
            onOutcome(outcome)
            if failFast && outcome.status == .failed {
                stopped.store(true, ordering: .relaxed)
                source.cancel()
            }
        }
        await feeder.value
        var summary = tally.summary
        summary.interrupted = cancellation.isCancelled
        return summary
    }
}

/// The outcomes a batch has reported so far, counted.
public final class BatchTally: Sendable {
    private let state = Mutex(BatchSummary())

    public init() {}

    func add(_ outcome: FileOutcome) {
        state.withLock { summary in
            switch outcome.status {
            case .ok: summary.converted += 1
            case .skipped: summary.skipped += 1
            case .failed: summary.failed += 1
            }
            summary.encodes += outcome.encodes ?? 0
            if let score = outcome.score { summary.lowestScore = min(summary.lowestScore ?? score, score) }
        }
    }

    public var summary: BatchSummary { state.withLock { $0 } }
}
