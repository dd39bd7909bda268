import Foundation
import ImagePrep

/// Runs a convert or compress batch end to end: plan, run, report, exit status.
func runBatch(_ options: BatchCommandOptions, command: String) async -> Int32 {
    let reporter = Reporter(mode: options.report, command: command, budget: options.settings.budget?.maxBytes)
    let inputs: [String]
    do {
        inputs = try options.inputPaths()
    } catch {
        reporter.usageError("\(error)")
        return 2
    }
    if inputs.isEmpty {
        reporter.usageError("no input files; see 'imgprep \(command) --help'")
        return 2
    }
    let expanded = BatchPlan.expand(inputs, recursive: options.recursive, excluding: options.outputDirectory)
    for (path, reason) in expanded.errors { reporter.fileError(path, reason) }
    let jobs = BatchPlan.jobs(for: expanded.inputs, format: options.settings.format,
                              outputDirectory: options.outputDirectory, inPlace: options.batch.inPlace)

    let cancellation = CancellationFlag()
    // Files are prepared in worker processes (this same binary, see main.swift): a crash or a hang in a
    // decoder costs one file, not the batch.
    // /proc/self/exe is this very binary even if the file was replaced since; argv[0] is its name for `ps`.
    let pool = WorkerPool(.init(executable: "/proc/self/exe",
                                arguments: [RawPath.resolved("/proc/self/exe") ?? "imgprep", WorkerCommand.name],
                                timeout: options.timeout, memoryBudget: options.memoryLimit))
    let signals = SignalWatcher {
        cancellation.cancel()
        pool.stop()
    }
    reporter.start(total: jobs.count)
    // IMGPREP_ISOLATION=off prepares files in this process: only for measuring what isolation costs
    // (make bench); a crash in a decoder then ends the whole batch.
    let isolated = ProcessInfo.processInfo.environment["IMGPREP_ISOLATION"] != "off"
    if !isolated { FileConverter.tuneAllocator() }
    let isolatedPrepare: FileConverter.Prepare = { file, settings in try await pool.prepare(file, settings: settings) }
    let converter = FileConverter(settings: options.settings, options: options.batch, cancellation: cancellation,
                                  prepare: isolated ? isolatedPrepare : FileConverter.inProcess)
    var summary = await BatchRunner.run(jobs, limit: options.batch.jobs, failFast: options.batch.failFast,
                                        cancellation: cancellation,
                                        work: { job, context in await converter.convert(job, context: context) },
                                        onOutcome: { outcome in reporter.report(outcome) })
    pool.stop()
    summary.failed += expanded.errors.count
    reporter.finish(summary)
    if summary.interrupted { return 128 + signals.received }
    return summary.failed > 0 ? 1 : 0
}
