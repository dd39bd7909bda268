import CImageCodecs
import Foundation

/// Everything that happens to one input in a batch, around the pipeline: refusing conflicts, skipping
/// up-to-date outputs, admitting the file through the memory gate, reading, preparing (through
/// `prepare`, which may run in another process) and writing the output atomically. Never throws:
/// every problem becomes the outcome.
public struct FileConverter: Sendable {
    public typealias Prepare = @Sendable ([UInt8], ConversionSettings, PrepareContext) async throws -> PreparedImage

    public var settings: ConversionSettings
    public var options: BatchOptions
    public var cancellation: CancellationFlag
    /// Turns input bytes into output bytes: `ImagePipeline.prepare` in this process, or a worker's.
    public var prepare: Prepare
    /// Outputs found in the cache or made for an identical input; nil prepares every file.
    public var reuse: OutputReuse?
    /// Admits each file, before it is read, while the memory estimated for the files in flight fits
    /// `--memory-limit`; nil admits every file.
    public var gate: MemoryGate?
    /// Where a web image set's variants go (`--name`); nil names them `{name}.{ext}`.
    public var naming: SetNaming?

    public init(settings: ConversionSettings, options: BatchOptions, cancellation: CancellationFlag,
                reuse: OutputReuse? = nil, gate: MemoryGate? = nil,
                prepare: @escaping Prepare = FileConverter.inProcess(timeout: nil)) {
        self.settings = settings
        self.options = options
        self.cancellation = cancellation
        self.reuse = reuse
        self.gate = gate
        self.prepare = prepare
    }

    public func convert(_ job: BatchJob, context: JobContext) async -> FileOutcome {
        let start = DispatchTime.now()
        var outcome = await convertUntimed(job, context: context)
        outcome.milliseconds = Int((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
        return outcome
    }

    private func convertUntimed(_ job: BatchJob, context: JobContext) async -> FileOutcome {
        var outcome = FileOutcome(job: job, status: .ok)
        if let problem = job.problem {
            return FileOutcome(job: job, failure: problem)
        }
        if let reason = Self.skipReason(job, options: options) {
            outcome.status = .skipped
            outcome.reason = reason
            return outcome
        }
        // Reading the input throws with its own stage (read); so does what `prepare` throws.
        var stage = PipelineStage.sniff
        do {
            if options.dryRun {
                // What a real run would refuse before decoding: a file that is not an image we read.
                let head = try InputFile.head(job.readPath, count: 4096)   // an ftyp box with many brands fits
                let format = try FormatSniffer.sniff(head).get()
                if options.inPlace { _ = try settings(forInPlace: format) }
                let outputs = job.possibleOutputs
                outcome.reason = job.setOutputs != nil ? "dry run: would write a set (\(outputs.joined(separator: ", ")), at the widths the picture allows)"
                    : outputs.count == 1 ? "dry run: would write \(job.output)"
                    : "dry run: would write one of \(outputs.joined(separator: ", ")) (chosen per picture)"
                return outcome
            }
            let scheduling = Scheduling(threads: options.threadsPerImage ?? context.threads)
            let (bytes, admission) = try await admitAndRead(job.readPath, scheduling: scheduling)
            defer { admission.ticket?.release() }
            var settings = self.settings
            if case .success(let format) = FormatSniffer.sniff(bytes), options.inPlace {
                settings = try self.settings(forInPlace: format)
            } else if let graphicFormat = settings.graphicFormat, job.outputFormats?.contains(graphicFormat) != true {
                // A graphic may take its own format only when the planner found its name free.
                settings.graphicFormat = nil
            }
            let key = reuse?.key(for: bytes, settings: settings)
            let prepared: PreparedImage
            if let reuse, let key {
                let source: OutputReuse.Source
                (prepared, source) = try await reuse.output(for: key, input: job.input) { [settings] in try await prepare(bytes, settings, admission) }
                outcome.cached = source == .cache
                if case .duplicate(let first) = source { outcome.duplicateOf = first }
            } else {
                prepared = try await prepare(bytes, settings, admission)
            }
            // --to auto: the output's name follows the format chosen.
            let output = job.output(in: prepared.format)
            outcome.job.output = output
            outcome.format = prepared.format
            outcome.score = prepared.score
            outcome.scores = prepared.scores
            outcome.candidates = prepared.candidates
            outcome.width = prepared.width
            outcome.height = prepared.height
            outcome.bytes = prepared.bytes.count
            outcome.quality = prepared.quality
            outcome.encodes = prepared.encodes
            outcome.probes = prepared.probes
            outcome.passedThrough = prepared.passedThrough
            outcome.lossless = prepared.lossless
            outcome.gainMap = prepared.gainMap
            outcome.warnings = prepared.warnings
            stage = .write
            guard !cancellation.isCancelled else { throw ImagePrepError(.interrupted, "interrupted") }
            if let set = prepared.set {
                let outputs = try writeSet(set, bytes: prepared.bytes, job: job)
                outcome.job.output = outputs[0]
                outcome.set = set
                outcome.variantPaths = outputs
                if let key { reuse?.written(key, input: job.input, outputs: outputs, image: prepared) }
                return outcome
            }
            if prepared.passedThrough && options.inPlace { return outcome }  // already as it should be
            let mtime = options.preserveModificationTime ? FileTimestamp(modificationOf: job.readPath) : nil
            try AtomicWriter.write(prepared.bytes, to: output,
                                   permissionsFrom: options.inPlace ? job.input : nil, modificationTime: mtime,
                                   durable: options.inPlace)  // in place, the old bytes are the user's only copy
            if let key { reuse?.written(key, input: job.input, outputs: [output], image: prepared) }
        } catch {
            return FileOutcome(job: job, failure: .failed(at: stage, error, otherwise: .io))
        }
        return outcome
    }

    /// Waits for the memory gate with an estimate from the file's size and header, then reads the file.
    /// A header found only further in (after the first MB) may raise the estimate once the file is read:
    /// then the file waits again for the larger amount.
    private func admitAndRead(_ path: String, scheduling: Scheduling) async throws -> ([UInt8], PrepareContext) {
        let (size, head) = try InputFile.sizeAndHead(path, count: MemoryEstimate.headBytes)
        guard size <= options.maxInputBytes else {
            throw ImagePrepError(.tooLarge, "the file is \(size) bytes, over the --max-input-size limit of \(ByteSize.format(options.maxInputBytes))")
        }
        var estimate = MemoryEstimate.peak(ofHead: head, fileSize: size, settings: settings, threads: scheduling.threads)
        var ticket = await gate?.ticket(for: estimate)
        do {
            let bytes = try InputFile.read(path, maxBytes: options.maxInputBytes)
            let exact = MemoryEstimate.peak(of: bytes, settings: settings, threads: scheduling.threads)
            if exact > estimate, let held = ticket {
                held.release()
                ticket = nil
                ticket = await gate?.ticket(for: exact)
            }
            estimate = max(estimate, exact)
            return (bytes, PrepareContext(scheduling: scheduling, estimate: estimate, ticket: ticket))
        } catch {
            ticket?.release()
            throw error
        }
    }

    /// The settings for an input of `format` replaced in place, which keeps its format since it keeps its
    /// name: the output format's files (the command line allows only formats whose writer `replacesInPlace`),
    /// or on compress's graphic route the graphic format's. A PNG stays a PNG: a graphic lossless when that
    /// fits, else a palette (GraphicRoute), a photo as `--to png` writes it; it cannot become a JPEG.
    private func settings(forInPlace format: SniffedFormat) throws -> ConversionSettings {
        var settings = settings
        if settings.format.writer.isSameFormat(as: format) {
            settings.graphicFormat = nil
            return settings
        }
        if let graphicFormat = settings.graphicFormat, graphicFormat.writer.isSameFormat(as: format) {
            settings.format = graphicFormat
            // What compress --to png asks for: a palette is PNG's quality, searched for the budget.
            settings.palette = settings.budget != nil || settings.scoreTarget != nil
            return settings
        }
        let kept = [settings.format.writer.displayName] + (settings.graphicFormat.map { [$0.writer.displayName] } ?? [])
        throw ImagePrepError(.output, "--in-place replaces \(Formats.list(kept)) files only; this is \(format.name): use -o DIR")
    }

    static func skipReason(_ job: BatchJob, options: BatchOptions) -> String? {
        guard !options.inPlace, options.existing != .overwrite else { return nil }
        // --to auto: any output the picture may get counts (an earlier run may have chosen another format).
        let existing = job.possibleOutputs.compactMap { output in FileTimestamp(modificationOf: output).map { (output, $0) } }
        guard let (found, outputTime) = existing.max(by: { $0.1 < $1.1 }) else { return nil }
        // A set is up to date only when every variant whose name is known is.
        if let names = job.setOutputs, names.isEmpty || existing.count < names.count { return nil }
        let which = job.outputFormats == nil ? "" : " (\(found))"
        if options.existing == .skip { return "output exists" + which }
        guard let inputTime = FileTimestamp(modificationOf: job.readPath) else { return nil }
        return outputTime >= inputTime ? "output is up to date" + which : nil
    }

    /// Decoded photos take tens of MB each. Past the first free, glibc raises its mmap threshold and
    /// serves later images from per-thread heaps that do not shrink; pinning it keeps big buffers
    /// mmapped and returned at once (peak RSS at -j 2 on the corpus photos: 175 MB instead of 230-250).
    /// Pinning it also drops the trim threshold to 128 KB, so heaps were handed back and faulted in
    /// again for every small decoder buffer; 32 MB keeps those (a third less time in the kernel).
    /// The threshold is 4 MB, not 1 MB: libwebp's lossless encoder allocates and fills a 1 MB hash table
    /// for every frame it tries, and mmapped afresh each time that was most of an animation's page faults.
    public static func tuneAllocator() {
        cic_tune_allocator(4 << 20, 32 << 20)
    }
}
