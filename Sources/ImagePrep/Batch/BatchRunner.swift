import CImageCodecs
import Foundation
import Synchronization

/// What happens to outputs that already exist.
public enum ExistingOutputPolicy: Sendable {
    case overwrite
    /// Leave every existing output alone.
    case skip
    /// Leave outputs that are newer than their input alone (Makefile-style).
    case update
}

public struct BatchOptions: Sendable {
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    public var existing = ExistingOutputPolicy.overwrite
    public var dryRun = false
    public var preserveModificationTime = false
    public var inPlace = false
    public var failFast = false

    public init() {}
}

/// The result for one input, streamed as soon as it is known.
public struct FileOutcome: Sendable {
    public enum Status: String, Sendable { case ok, skipped, failed }

    public var job: BatchJob
    public var status: Status
    /// Why it failed, or why it was skipped.
    public var reason: String?
    public var format: OutputFormat?
    public var width: Int?
    public var height: Int?
    public var bytes: Int?
    public var quality: Int?
    public var encodes: Int?
    public var passedThrough = false
    public var warnings: [String] = []
    public var milliseconds = 0

    public init(job: BatchJob, status: Status, reason: String? = nil) {
        self.job = job
        self.status = status
        self.reason = reason
    }
}

public struct BatchSummary: Sendable {
    public var converted = 0
    public var skipped = 0
    public var failed = 0
    public var interrupted = false
    public var encodes = 0
}

/// Set from a signal handler, read by workers: stop starting files and do not publish any more outputs.
public final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// A bounded pool: at most `options.jobs` images are in memory at once, however long the list;
/// outcomes arrive in completion order. Each job's C handles live and die inside that job.
public enum BatchRunner {
    public static func run(_ jobs: [BatchJob], settings: ConversionSettings, options: BatchOptions,
                           cancellation: CancellationFlag,
                           onOutcome: @escaping @Sendable (FileOutcome) -> Void) async -> BatchSummary {
        // Decoded photos take tens of MB each. Past the first free, glibc raises its mmap threshold and
        // serves later images from per-thread heaps that do not shrink; pinning it keeps big buffers
        // mmapped and returned at once (peak RSS at -j 2 on the corpus photos: 175 MB instead of 230-250).
        // Pinning it also drops the trim threshold to 128 KB, so heaps were handed back and faulted in
        // again for every small decoder buffer; 32 MB keeps those (a third less time in the kernel).
        cic_tune_allocator(1 << 20, 32 << 20)
        var summary = BatchSummary()
        let limit = max(1, options.jobs)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // Workers block in C for whole seconds, so they run on their own threads, not Swift's cooperative pool.
        let workers = DispatchQueue(label: "imgprep.workers", attributes: .concurrent)
        await withTaskGroup(of: FileOutcome.self) { group in
            var next = 0
            var stop = false
            func startNext() {
                guard !stop, next < jobs.count, !cancellation.isCancelled else { return }
                let job = jobs[next]
                var jobSettings = settings
                // Near the end of the list fewer images share the cores, so each may use more threads.
                jobSettings.threadsPerImage = max(1, cores / max(1, min(limit, jobs.count - next)))
                next += 1
                let settingsForJob = jobSettings
                group.addTask {
                    await withCheckedContinuation { continuation in
                        workers.async {
                            continuation.resume(returning: process(job, settings: settingsForJob, options: options, cancellation: cancellation))
                        }
                    }
                }
            }
            for _ in 0..<limit { startNext() }
            for await outcome in group {
                if cancellation.isCancelled && outcome.status == .failed && outcome.reason == interruptedReason {
                    continue
                }
                switch outcome.status {
                case .ok: summary.converted += 1
                case .skipped: summary.skipped += 1
                case .failed: summary.failed += 1
                }
                summary.encodes += outcome.encodes ?? 0
                onOutcome(outcome)
                if options.failFast && outcome.status == .failed { stop = true }
                startNext()
            }
        }
        summary.interrupted = cancellation.isCancelled
        return summary
    }

    static let interruptedReason = "interrupted"

    /// Reads, prepares and writes one file; never throws: every problem becomes the outcome's reason.
    static func process(_ job: BatchJob, settings: ConversionSettings, options: BatchOptions,
                        cancellation: CancellationFlag) -> FileOutcome {
        let start = DispatchTime.now()
        var outcome = processUntimed(job, settings: settings, options: options, cancellation: cancellation)
        outcome.milliseconds = Int((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
        return outcome
    }

    private static func processUntimed(_ job: BatchJob, settings: ConversionSettings, options: BatchOptions,
                                       cancellation: CancellationFlag) -> FileOutcome {
        var outcome = FileOutcome(job: job, status: .ok)
        if let problem = job.problem {
            outcome.status = .failed
            outcome.reason = problem
            return outcome
        }
        if let reason = skipReason(job, options: options) {
            outcome.status = .skipped
            outcome.reason = reason
            return outcome
        }
        if options.dryRun {
            outcome.reason = "dry run: would write \(job.output)"
            return outcome
        }
        do {
            let bytes = try InputFile.read(job.input, maxBytes: settings.maxInputBytes)
            if options.inPlace, case .success(let format) = FormatSniffer.sniff(bytes), format != .jpeg {
                throw ImagePrepError(.output, "--in-place replaces JPEG files only; this is \(format.name): use -o DIR")
            }
            let prepared = try ImagePipeline.prepare(bytes, settings: settings)
            outcome.format = prepared.format
            outcome.width = prepared.width
            outcome.height = prepared.height
            outcome.bytes = prepared.bytes.count
            outcome.quality = prepared.quality
            outcome.encodes = prepared.encodes
            outcome.passedThrough = prepared.passedThrough
            outcome.warnings = prepared.warnings
            guard !cancellation.isCancelled else {
                outcome.status = .failed
                outcome.reason = interruptedReason
                return outcome
            }
            if prepared.passedThrough && options.inPlace { return outcome }  // already as it should be
            let mtime = options.preserveModificationTime ? FileTimestamp(modificationOf: job.input) : nil
            try AtomicWriter.write(prepared.bytes, to: job.output,
                                   permissionsFrom: options.inPlace ? job.input : nil, modificationTime: mtime)
        } catch let error as ImagePrepError {
            outcome.status = .failed
            outcome.reason = error.description
        } catch {
            outcome.status = .failed
            outcome.reason = "\(error)"
        }
        return outcome
    }

    static func skipReason(_ job: BatchJob, options: BatchOptions) -> String? {
        guard !options.inPlace, options.existing != .overwrite,
              let outputTime = FileTimestamp(modificationOf: job.output) else { return nil }
        if options.existing == .skip { return "output exists" }
        guard let inputTime = FileTimestamp(modificationOf: job.input) else { return nil }
        return outputTime >= inputTime ? "output is up to date" : nil
    }
}
