import Foundation
import Synchronization

/// What a batch tells its caller, in order: each file's outcome as it is known, warnings about the
/// whole run, then `finished` once.
public enum BatchEvent: Sendable {
    case outcome(FileOutcome)
    /// About the whole run, not one file (the cache was too small to keep this run's outputs).
    case warning(String)
    /// The run failed although its files may not have (the manifest could not be written).
    case failure(String)
    case finished(BatchSummary)
}

/// A convert or compress batch as one call: `Batch(request).run()` finds the inputs (as they arrive),
/// plans their outputs, prepares each (in worker processes when asked), writes them, then the manifest.
/// The command line is a front end over this type: it parses, prints the events and sets the exit status.
///
///     let batch = try Batch(request)
///     for await event in batch.run() { … }
///
/// Finding the inputs starts at `init`; `cancel()` (from a signal handler, say) stops the batch, whose
/// `finished` summary then says it was interrupted.
public final class Batch: Sendable {
    public let request: BatchRequest
    private let source: JobSource
    private let converter: FileConverter
    private let fetcher: FetchStage
    private let cache: OutputCache?
    private let gate: MemoryGate
    private let pool: WorkerPool?
    private let cancellation: CancellationFlag
    private let manifest: ManifestCollector?
    private let tally = BatchTally()
    private let started = Atomic<Bool>(false)

    public init(_ request: BatchRequest) throws(BatchRequestError) {
        var request = request
        // A set writes its own formats: the batch's format is its first (as the command line says it).
        if let set = request.settings.set, let first = set.formats.first, !set.formats.contains(where: { $0.format == request.settings.format }) {
            request.settings.format = first.format
        }
        self.request = request
        do {
            cache = try request.cacheDirectory.map { try OutputCache(directory: $0, maxSize: request.cacheMaxSize) }
        } catch {
            throw BatchRequestError(description: "cannot use the cache directory: \(error)")
        }
        // URL and data: inputs are fetched here, in this process, before the file converter reads them.
        do {
            fetcher = try FetchStage(options: request.fetch, cacheMaxSize: request.cacheMaxSize)
        } catch {
            throw BatchRequestError(description: "cannot use the HTTP cache directory: \(error)")
        }
        let settings = request.settings
        // A set's outputs are named by the default template unless the request names them.
        let setOutputs = request.set ?? settings.set.map { set in
            SetOutputs(naming: SetNaming(template: set.widths == nil ? SetNaming.withoutWidths : SetNaming.withWidths,
                                         outputDirectory: request.outputDirectory),
                       formats: set.formats.map(\.format), widths: set.widths)
        }
        if setOutputs != nil, settings.set == nil {
            throw BatchRequestError(description: "a set's outputs are named but settings.set does not say what they are")
        }
        if request.manifest != nil, setOutputs == nil {
            throw BatchRequestError(description: "a manifest describes web image sets: give settings.set too")
        }
        var planner = JobPlanner(format: settings.format, outputDirectory: request.outputDirectory,
                                 outputFile: request.outputFile, inPlace: request.options.inPlace,
                                 autoFormats: settings.autoFormats?.map(\.format), set: setOutputs,
                                 graphicFormat: settings.graphicFormat)
        if let manifest = request.manifest { planner.reserve(manifest.path, for: "--manifest") }
        request.protectedPaths.forEach { planner.protect($0) }
        source = JobSource(arguments: request.inputs, list: request.list, recursive: request.recursive,
                           excluding: request.outputDirectory, planner: planner, shard: request.shard,
                           largestFirst: request.options.jobs > 1)
        // Every file is admitted here before it is read, whether it is then prepared in a worker or not.
        gate = MemoryGate(budget: request.memoryLimit)
        let cancellation = CancellationFlag()
        self.cancellation = cancellation
        let prepare: FileConverter.Prepare
        switch request.isolation {
        case .inProcess:
            pool = nil
            prepare = FileConverter.inProcess(timeout: request.timeout)
        case .workers(let executable, let arguments):
            let pool = WorkerPool(.init(executable: executable, arguments: arguments, timeout: request.timeout,
                                        memoryBudget: request.memoryLimit))
            self.pool = pool
            prepare = { file, settings, context in try await pool.prepare(file, settings: settings, context: context) }
        }
        var converter = FileConverter(settings: settings, options: request.options, cancellation: cancellation,
                                      reuse: OutputReuse(settings: settings, cache: cache), gate: gate, prepare: prepare)
        converter.naming = setOutputs?.naming
        self.converter = converter
        manifest = request.manifest.map { ManifestCollector($0) }
    }

    /// The batch's events; a batch runs once (a second call's stream only finishes).
    public func run() -> AsyncStream<BatchEvent> {
        let (events, continuation) = AsyncStream.makeStream(of: BatchEvent.self)
        guard !started.exchange(true, ordering: .relaxed) else {
            continuation.finish()
            return events
        }
        Task {
            let summary = await runToEnd { continuation.yield($0) }
            continuation.yield(.finished(summary))
            continuation.finish()
        }
        return events
    }

    private func runToEnd(_ emit: @escaping @Sendable (BatchEvent) -> Void) async -> BatchSummary {
        let (converter, fetcher, manifest) = (converter, fetcher, manifest)
        let summary = await BatchRunner.run(source, limit: request.options.jobs, failFast: request.options.failFast,
                                            cancellation: cancellation, tally: tally,
                                            work: { job, context in
                                                await fetcher.run(job, batch: converter.options) { await converter.convert($0, context: context) }
                                            },
                                            onOutcome: { outcome in
                                                manifest?.add(outcome)
                                                emit(.outcome(outcome))
                                            })
        gate.openAll()
        pool?.stop()
        if let problem = cache?.problem { emit(.warning(problem)) }
        if let cache, cache.statistics.evictedFromThisRun > 0 {
            emit(.warning("the cache at \(cache.directory) is smaller than this run's outputs (--cache-max-size \(ByteSize.format(cache.maxSize))): some of them were evicted"))
        }
        if let manifest, !summary.interrupted, !request.options.dryRun {
            do {
                try manifest.write()
            } catch {
                emit(.failure("cannot write the manifest \(manifest.options.path): \(error)"))
            }
        }
        return summary
    }

    /// Stops the batch: no file starts from now on, files in flight are abandoned (their workers killed,
    /// downloads dropped), and nothing partial is left.
    public func cancel() {
        cancellation.cancel()
        FetchStage.cancelAll()
        source.cancel()
        gate.openAll()
        pool?.stop()
    }

    /// Inputs found so far, and whether that is all of them (every argument walked, the list read to its end).
    public var found: (count: Int, complete: Bool) { (source.jobsFound, source.isComplete) }

    /// The outcomes counted so far: for saying how far the batch got when it cannot wait for `finished`.
    public var summarySoFar: BatchSummary { tally.summary }
}
