import Foundation

/// What the pool tells the per-file work when it starts a job.
public struct JobContext: Sendable {
    /// Threads this file may use: more when fewer files than cores are left.
    public var threads: Int
}

/// A bounded pool: at most `limit` jobs are in flight at once, however long the list; outcomes arrive in
/// completion order. What a job does is the caller's `work`, so the pool is tested without real images.
public enum BatchRunner {
    public static func run(_ jobs: [BatchJob], limit: Int, failFast: Bool = false, cancellation: CancellationFlag,
                           work: @escaping @Sendable (BatchJob, JobContext) async -> FileOutcome,
                           onOutcome: @escaping @Sendable (FileOutcome) -> Void) async -> BatchSummary {
        var summary = BatchSummary()
        let limit = max(1, limit)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        await withTaskGroup(of: FileOutcome.self) { group in
            var next = 0
            var stop = false
            func startNext() {
                guard !stop, next < jobs.count, !cancellation.isCancelled else { return }
                let job = jobs[next]
                // Near the end of the list fewer images share the cores, so each may use more threads.
                let context = JobContext(threads: max(1, cores / max(1, min(limit, jobs.count - next))))
                next += 1
                group.addTask { await work(job, context) }
            }
            for _ in 0..<limit { startNext() }
            for await outcome in group {
                if cancellation.isCancelled && outcome.status == .failed && outcome.errorKind == .interrupted { continue }
                switch outcome.status {
                case .ok: summary.converted += 1
                case .skipped: summary.skipped += 1
                case .failed: summary.failed += 1
                }
                summary.encodes += outcome.encodes ?? 0
                onOutcome(outcome)
                if failFast && outcome.status == .failed { stop = true }
                startNext()
            }
        }
        summary.interrupted = cancellation.isCancelled
        return summary
    }
}
