import Foundation
import ImagePrep
import Synchronization

/// Runs a convert or compress batch end to end: find the inputs (as they arrive), plan their outputs,
/// prepare them in worker processes, write, report, and say the exit status.
func runBatch(_ options: BatchCommandOptions, command: String) async -> Int32 {
    let reporter = Reporter(mode: options.report, command: command, budget: options.settings.budget?.maxBytes,
                            dryRun: options.batch.dryRun, shard: options.shard)
    let signals = SignalWatcher()
    let list: JobSource.List?
    do {
        list = options.paths.contains("-") ? nil : try options.list()
        try options.checkPipes(listGiven: list != nil)
        try options.checkOutputFile(listGiven: list != nil)
    } catch {
        reporter.usageError("\(error)")
        return 2
    }
    if options.usesPipes { return runThroughPipes(options, reporter: reporter) }
    if options.paths.isEmpty && list == nil {
        reporter.usageError("no input files; see 'imgprep \(command) --help'")
        return 2
    }
    let cache: OutputCache?
    do {
        cache = try options.cacheDirectory.map { try OutputCache(directory: $0, maxSize: options.cacheMaxSize) }
    } catch {
        reporter.usageError("cannot use the cache directory: \(error)")
        return 2
    }
    // URL and data: inputs are fetched here, in the parent, before the file converter reads them.
    let fetcher: FetchStage
    do {
        fetcher = try FetchStage(options: options.fetch, cacheMaxSize: options.cacheMaxSize)
    } catch {
        reporter.usageError("cannot use the HTTP cache directory: \(error)")
        return 2
    }

    var planner = JobPlanner(format: options.settings.format, outputDirectory: options.outputDirectory,
                             outputFile: options.outputFile, inPlace: options.batch.inPlace,
                             autoFormats: options.settings.autoFormats?.map(\.format), set: options.setOutputs,
                             graphicFormat: options.settings.graphicFormat)
    if let manifest = options.manifest { planner.reserve(manifest.path, for: "--manifest") }
    if let filesFrom = options.filesFrom, filesFrom != "-" { planner.protect(filesFrom) }
    let source = JobSource(arguments: options.paths, list: list, recursive: options.recursive,
                           excluding: options.outputDirectory, planner: planner, shard: options.shard,
                           largestFirst: options.batch.jobs > 1)
    let cancellation = CancellationFlag()
    // Files are prepared in worker processes (this same binary, see main.swift): a crash or a hang in a
    // decoder costs one file, not the batch.
    let pool = WorkerCommand.pool(timeout: options.timeout, memoryBudget: options.memoryLimit)
    // Every file is admitted here before it is read, whether it is then prepared in a worker or not.
    let gate = MemoryGate(budget: options.memoryLimit)
    let tally = Tally()
    signals.onSignal({
        cancellation.cancel()
        FetchStage.cancelAll()
        source.cancel()
        gate.openAll()
        pool.stop()
    }, lastWords: { _ in
        guard tally.claimSummary() else { return false }
        var summary = tally.summary
        summary.interrupted = true
        reporter.finish(summary)
        return true
    })
    reporter.start(source)
    let environment = ProcessInfo.processInfo.environment
    // IMGPREP_ISOLATION=off prepares files in this process: only for measuring what isolation costs
    // (make bench); a crash in a decoder then ends the whole batch. The gate and --timeout still hold.
    let isolated = environment["IMGPREP_ISOLATION"] != "off"
    if !isolated { FileConverter.tuneAllocator() }
    let isolatedPrepare: FileConverter.Prepare = { file, settings, context in
        try await pool.prepare(file, settings: settings, context: context)
    }
    var batch = options.batch
    batch.threadsPerImage = Scheduling.override(from: environment)
    var preparing = FileConverter(settings: options.settings, options: batch, cancellation: cancellation,
                                  reuse: OutputReuse(settings: options.settings, cache: cache), gate: gate,
                                  prepare: isolated ? isolatedPrepare : FileConverter.inProcess(timeout: options.timeout))
    preparing.naming = options.setOutputs?.naming
    let converter = preparing
    let manifest = options.manifest.map { ManifestCollector($0) }
    let summary = await BatchRunner.run(source, limit: options.batch.jobs, failFast: options.batch.failFast,
                                        cancellation: cancellation,
                                        work: { job, context in
                                            await fetcher.run(job, batch: converter.options) { await converter.convert($0, context: context) }
                                        },
                                        onOutcome: { outcome in
                                            tally.add(outcome)
                                            manifest?.add(outcome)
                                            reporter.report(outcome)
                                        })
    gate.openAll()
    pool.stop()
    if let problem = cache?.problem { reporter.warning(problem) }
    if let cache, cache.statistics.evictedFromThisRun > 0 {
        reporter.warning("the cache at \(cache.directory) is smaller than this run's outputs (--cache-max-size \(ByteSize.format(cache.maxSize))): some of them were evicted")
    }
    guard tally.claimSummary() else {
        // A signal's forced end is printing the summary and ending the process: let it finish.
        while true { sleep(1) }
    }
    var failed = summary.failed > 0
    if let manifest, !summary.interrupted, !options.batch.dryRun {
        do {
            try manifest.write()
        } catch {
            reporter.usageError("cannot write the manifest \(manifest.options.path): \(error)")
            failed = true
        }
    }
    reporter.finish(summary)
    if summary.interrupted { return 128 + signals.received }
    return failed ? 1 : 0
}

/// The outcomes reported so far, for a summary when a signal ends the run before the batch returns its own.
final class Tally: Sendable {
    private let state = Mutex(BatchSummary())
    private let summaryClaimed = Atomic<Bool>(false)

    /// True for the first caller only: who prints the summary, the batch or a signal's forced end.
    func claimSummary() -> Bool {
        summaryClaimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }

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

    var summary: BatchSummary { state.withLock { $0 } }
}
