import Foundation
import ImagePrep

/// Runs a convert or compress batch end to end: plan, run, report, exit status.
func runBatch(_ options: BatchCommandOptions, command: String) async -> Int32 {
    let reporter = Reporter(mode: options.report, command: command, budget: options.settings.budget?.maxBytes,
                            dryRun: options.batch.dryRun)
    let inputs: [String]
    do {
        inputs = try options.inputPaths()
        try options.checkOutputFile(inputCount: inputs.count)
    } catch {
        reporter.usageError("\(error)")
        return 2
    }
    if inputs.isEmpty {
        reporter.finishEmpty()
        return 0
    }
    let expanded = BatchPlan.expand(inputs, recursive: options.recursive, excluding: options.outputDirectory)
    for (path, reason) in expanded.errors { reporter.fileError(path, reason) }
    let jobs = BatchPlan.jobs(for: expanded.inputs, format: options.settings.format, outputDirectory: options.outputDirectory,
                              outputFile: options.outputFile, inPlace: options.batch.inPlace)

    let cancellation = CancellationFlag()
    let signals = SignalWatcher(cancellation)
    reporter.start(total: jobs.count)
    FileConverter.tuneAllocator()
    let converter = FileConverter(settings: options.settings, options: options.batch, cancellation: cancellation)
    var summary = await BatchRunner.run(jobs, limit: options.batch.jobs, failFast: options.batch.failFast,
                                        cancellation: cancellation,
                                        work: { job, context in await converter.convert(job, context: context) },
                                        onOutcome: { outcome in reporter.report(outcome) })
    summary.failed += expanded.errors.count
    reporter.finish(summary)
    if summary.interrupted { return 128 + signals.received }
    return summary.failed > 0 ? 1 : 0
}
