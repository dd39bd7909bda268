import Foundation
import ImagePrep

/// Runs a convert or compress batch: the command line made into the library's `BatchRequest`, its
/// `Batch` run with signals forwarded to `cancel()`, each event printed, and the exit status said.
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
    let request = options.request(list: list)
    // Decoded photos take tens of MB each: glibc's settings for many threads of one process.
    if case .inProcess = request.isolation { FileConverter.tuneAllocator() }
    let batch: Batch
    do {
        batch = try Batch(request)
    } catch {
        reporter.usageError("\(error)")
        return 2
    }
    // Who prints the summary: the batch when it ends, or a signal's forced end if it comes first.
    let summaryClaim = SignalWatcher.Claim()
    signals.onSignal({ batch.cancel() }, lastWords: { _ in
        guard summaryClaim.take() else { return false }
        var summary = batch.summarySoFar
        summary.interrupted = true
        reporter.finish(summary)
        return true
    })
    reporter.start(batch)
    var summary = BatchSummary()
    var failed = false
    for await event in batch.run() {
        switch event {
        case .outcome(let outcome): reporter.report(outcome)
        case .warning(let warning): reporter.warning(warning)
        case .failure(let problem):
            reporter.usageError(problem)
            failed = true
        case .finished(let result): summary = result
        }
    }
    guard summaryClaim.take() else {
        // A signal's forced end is printing the summary and ending the process: let it finish.
        while true { sleep(1) }
    }
    reporter.finish(summary)
    if summary.interrupted { return 128 + signals.received }
    return failed || summary.failed > 0 ? 1 : 0
}

extension BatchCommandOptions {
    /// The library's request for this command line.
    func request(list: JobSource.List?) -> BatchRequest {
        var request = BatchRequest(inputs: paths, settings: settings)
        request.list = list
        request.recursive = recursive
        request.outputDirectory = outputDirectory
        request.outputFile = outputFile
        request.options = batch
        request.set = setOutputs
        request.manifest = manifest
        request.timeout = timeout
        request.memoryLimit = memoryLimit
        request.shard = shard
        request.cacheDirectory = cacheDirectory
        request.cacheMaxSize = cacheMaxSize
        request.fetch = fetch
        if let filesFrom, filesFrom != "-" { request.protectedPaths = [filesFrom] }
        let environment = ProcessInfo.processInfo.environment
        request.options.threadsPerImage = Scheduling.override(from: environment)
        // IMGPREP_ISOLATION=off prepares files in this process: only for measuring what isolation costs
        // (make bench); a crash in a decoder then ends the whole batch. The gate and --timeout still hold.
        // Otherwise files are prepared in worker processes (this same binary, see main.swift): a crash or
        // a hang in a decoder costs one file, not the batch.
        if environment["IMGPREP_ISOLATION"] != "off" { request.isolation = WorkerCommand.isolation }
        return request
    }
}
