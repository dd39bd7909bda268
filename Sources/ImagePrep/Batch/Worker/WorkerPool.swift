import Foundation
import Synchronization

/// Prepares files in long-lived worker processes, so that a crash, a hang or a memory bomb inside a C
/// decoder fails one file and the batch goes on. A file is admitted only while the memory estimates
/// in flight fit the budget; a worker that dies or overruns the timeout is replaced.
public final class WorkerPool: Sendable {
    public struct Configuration: Sendable {
        /// The program a worker runs (imgprep itself) and its argv, argv[0] included (what `ps` shows).
        public var executable: String
        public var arguments: [String]
        /// Seconds one file may take; nil for no limit.
        public var timeout: Double?
        /// Bytes the files `inspect` has in flight may be estimated to need together (a batch's files are
        /// admitted by the batch's own gate before they are read; see FileConverter).
        public var memoryBudget: Int

        public init(executable: String, arguments: [String], timeout: Double? = nil, memoryBudget: Int) {
            self.executable = executable
            self.arguments = arguments
            self.timeout = timeout
            self.memoryBudget = memoryBudget
        }
    }

    public let configuration: Configuration
    private let gate: MemoryGate
    private let idle = Mutex<[WorkerProcess]>([])
    private let busy = Mutex<[pid_t: WorkerProcess]>([:])
    private let stopped = Atomic<Bool>(false)
    /// Blocking pipe reads run here, not on Swift's cooperative threads.
    private let queue = DispatchQueue(label: "imgprep.worker-pipes", attributes: .concurrent)

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        gate = MemoryGate(budget: configuration.memoryBudget)
        // Writing to a worker that has just died must fail with EPIPE, not kill this process.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { stop() }

    /// Runs the pipeline on `file` in a worker; what `FileConverter.prepare` calls once the batch's memory
    /// gate has admitted the file (with `context.estimate`), so this does not ask the pool's gate again.
    public func prepare(_ file: [UInt8], settings: ConversionSettings, context: PrepareContext) async throws -> PreparedImage {
        let ceiling = MemoryEstimate.ceiling(forEstimate: context.estimate)
        let request = WorkerRequest.prepare(settings: settings, scheduling: context.scheduling, memoryCeiling: ceiling)
        guard case .prepared(let image) = try await run(request, on: file, admitting: nil, ceiling: ceiling) else {
            throw Self.protocolBroken
        }
        return image
    }

    /// Describes `file` for `info` in a worker: libheif and libexif read hostile files there, too.
    public func inspect(_ file: [UInt8]) async throws -> ImageDescription {
        let estimate = MemoryEstimate.baseline + 2 * file.count
        let ceiling = MemoryEstimate.ceiling(forEstimate: estimate)
        guard case .inspected(let description) = try await run(.inspect(memoryCeiling: ceiling), on: file,
                                                               admitting: estimate, ceiling: ceiling) else { throw Self.protocolBroken }
        return description
    }

    /// One request in a worker (under the pool's memory gate when `admitting` is given), with one retry
    /// when that worker turns out to have died while idle; a failure of the file's own is thrown as it is.
    private func run(_ request: WorkerRequest, on file: [UInt8], admitting estimate: Int?, ceiling: Int) async throws
        -> WorkerProcess.Result
    {
        if let estimate { await gate.admit(estimate) }
        defer { if let estimate { gate.release(estimate) } }
        guard !stopped.load(ordering: .relaxed) else { throw Self.interrupted }
        var (worker, result, timedOut) = try await attempt(request, on: file)
        if case .unavailable = result, !timedOut {
            // It died while idle and never saw this file: the file gets a fresh worker, once.
            retire(worker, alive: false)
            (worker, result, timedOut) = try await attempt(request, on: file)
        }
        switch result {
        case .prepared, .inspected:
            retire(worker, alive: !timedOut)
            return result
        case .failed(let error):
            retire(worker, alive: !timedOut)
            throw error
        case .unavailable:
            throw failure(of: worker, stage: nil, timedOut: timedOut, ceiling: ceiling)
        case .died(let stage):
            throw failure(of: worker, stage: stage, timedOut: timedOut, ceiling: ceiling)
        }
    }

    /// One exchange with a worker, under the timeout's watchdog.
    private func attempt(_ request: WorkerRequest, on file: [UInt8]) async throws
        -> (WorkerProcess, WorkerProcess.Result, timedOut: Bool)
    {
        let worker = try takeWorker()
        let watchdog = Watchdog()
        let result = await withCheckedContinuation { continuation in
            queue.async { [queue, timeout = configuration.timeout] in
                // The file's time starts once the worker runs: a fresh one first loads the libraries.
                guard worker.waitUntilReady() else { return continuation.resume(returning: WorkerProcess.Result.unavailable) }
                if let timeout {
                    queue.asyncAfter(deadline: .now() + timeout) { if watchdog.fire() { worker.kill() } }
                }
                continuation.resume(returning: worker.perform(request, on: file))
            }
        }
        let timedOut = !watchdog.disarm()
        busy.withLock { _ = $0.removeValue(forKey: worker.pid) }
        return (worker, result, timedOut)
    }

    /// Why a worker gave no result: reaps it and words its end for the file's line, in the stage it had
    /// reached (the line names it).
    private func failure(of worker: WorkerProcess, stage: PipelineStage?, timedOut: Bool, ceiling: Int) -> ImagePrepError {
        worker.kill()   // it may only have broken the protocol
        let death = worker.reap()
        var error: ImagePrepError
        if stopped.load(ordering: .relaxed) {
            error = Self.interrupted
        } else if timedOut {
            error = ImagePrepError(.timeout, "no result after \(Self.seconds(configuration.timeout ?? 0)); the file was abandoned (--timeout)")
        } else {
            error = ImagePrepError(.crashed, "\(death); the worker was replaced and the batch goes on"
                + " (memory ceiling for this file: \(ByteSize.format(ceiling)))")
        }
        error.stage = stage
        return error
    }

    /// Kills every worker and lets every waiting file through (to fail as interrupted). Idempotent.
    public func stop() {
        stopped.store(true, ordering: .relaxed)
        gate.openAll()
        for worker in idle.withLock({ workers in defer { workers.removeAll() }; return workers }) {
            worker.kill()
            _ = worker.reap()
        }
        busy.withLock { $0.values.forEach { $0.kill() } }
    }

    private func takeWorker() throws -> WorkerProcess {
        let worker = try idle.withLock { $0.popLast() }
            ?? WorkerProcess(executable: configuration.executable, arguments: configuration.arguments)
        busy.withLock { $0[worker.pid] = worker }
        if stopped.load(ordering: .relaxed) { worker.kill() }   // stop() may have run while it started
        return worker
    }

    /// Back to the idle list, or (killed by the watchdog just as it answered) reaped.
    private func retire(_ worker: WorkerProcess, alive: Bool) {
        if alive && !stopped.load(ordering: .relaxed) {
            idle.withLock { $0.append(worker) }
        } else {
            worker.kill()
            _ = worker.reap()
        }
    }

    static let interrupted = ImagePrepError(.interrupted, "interrupted")
    static let protocolBroken = ImagePrepError(.crashed, "the worker answered something else than was asked")

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// Fires at most once, unless disarmed first: the timeout and the result race without a lock held
/// across either.
private final class Watchdog: Sendable {
    private let state = Atomic<Int>(0)   // 0 armed, 1 fired, 2 disarmed

    /// True when this call fired it (the worker must be killed).
    func fire() -> Bool { state.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged }
    /// True when it had not fired.
    func disarm() -> Bool {
        state.compareExchange(expected: 0, desired: 2, ordering: .relaxed).exchanged
    }
}
