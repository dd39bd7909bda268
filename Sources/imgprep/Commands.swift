import Foundation
import ImagePrep
import Synchronization

/// A subcommand: its option table (which also drives --help) and how it runs.
protocol Command {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws
    func run() async -> Int32
}

/// Options shared by convert and compress: what to read, where to write, how to report.
enum SharedOptions {
    static let image: [OptionSpec] = [
        .value("output", "o", "DIR", "write outputs into DIR (created if missing) instead of next to each input"),
        .value("max-dimension", nil, "N", "shrink so the long edge is exactly N pixels; never enlarges"),
        .value("background", nil, "COLOR", "colour under transparent pixels in JPEG output: white, black or #rrggbb", default: "white"),
        .flag("strip-gps", nil, "remove GPS from EXIF and XMP, keep everything else"),
        .flag("strip-metadata", nil, "drop EXIF and XMP; the ICC profile stays so colours do not change"),
        .value("subsampling", nil, "MODE", "JPEG chroma: auto (444 at quality 90+, 420 below and in budget searches), 420, 422 or 444", default: "auto"),
        .flag("progressive", nil, "write progressive JPEG"),
        .value("max-pixels", nil, "N", "refuse inputs with more pixels than N before decoding", default: "300000000"),
        .value("max-input-size", nil, "SIZE", "refuse input files larger than SIZE before reading them (units as --max-bytes)", default: "1GB"),
    ]
    static let search: [OptionSpec] = [
        .value("min-quality", nil, "N", "lowest quality the search may use", default: "40"),
        .value("search", nil, "MODE", "binary (highest quality that fits) or step (from --quality down by --step)", default: "binary"),
        .value("step", nil, "N", "quality decrement for --search step", default: "5"),
        .flag("no-downscale", nil, "fail instead of shrinking when even --min-quality is over the budget"),
    ]
    static let batch: [OptionSpec] = [
        .flag("recursive", "r", "convert the images found under directory arguments, mirroring the tree into -o DIR"),
        .value("files-from", nil, "FILE", "read input paths from FILE, one per line ('-' is standard input)"),
        .flag("null", "0", "paths from --files-from or standard input are separated by NUL (find -print0)"),
        .value("jobs", "j", "N", "convert N files at a time", default: "number of cores"),
        .flag("skip-existing", nil, "leave outputs that already exist alone"),
        .flag("update", nil, "leave outputs that are newer than their input alone"),
        .flag("dry-run", nil, "print what would be written; write nothing"),
        .flag("preserve-mtime", nil, "give each output its input's modification time"),
        .flag("fail-fast", nil, "stop at the first failure"),
        .flag("json", nil, "print one JSON object per file, then a summary object, on standard output"),
        .flag("quiet", nil, "print only errors"),
        .flag("verbose", "v", "print a line per file (input -> output, size, quality)"),
        .flag("help", "h", "show this help"),
    ]
}

/// Turns parsed options into library settings; shared by convert and compress.
struct BatchCommandOptions {
    var settings = ConversionSettings()
    var batch = BatchOptions()
    var outputDirectory: String?
    var recursive = false
    var paths: [String] = []
    var filesFrom: String?
    var nullSeparated = false
    var report = Reporter.Mode.normal

    init(_ args: ParsedArguments, defaultQuality: Int) throws {
        func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
            try args.value(name, as: "an integer from \(range.lowerBound) to \(range.upperBound)") {
                Int($0).flatMap { range.contains($0) ? $0 : nil }
            }
        }
        settings.quality = try integer("quality", in: 1...100) ?? defaultQuality
        settings.maxDimension = try integer("max-dimension", in: 1...1_000_000)
        settings.maxPixels = try integer("max-pixels", in: 1...Int(Int32.max) * 4) ?? settings.maxPixels
        settings.maxInputBytes = try args.value("max-input-size", as: "a size such as 500MB or 2GiB", ByteSize.parse) ?? settings.maxInputBytes
        settings.background = try args.value("background", as: "white, black or #rrggbb", RGBColor.init(parsing:)) ?? .white
        settings.stripGPS = args.has("strip-gps")
        settings.stripMetadata = args.has("strip-metadata")
        if args.value("subsampling") != "auto" {
            settings.subsampling = try args.value("subsampling", as: "auto, 420, 422 or 444") {
                ["420": .s420, "422": .s422, "444": .s444][$0]
            }
        }
        settings.jpeg.progressive = args.has("progressive")
        settings.pngCompressionLevel = try integer("png-compression", in: 0...9) ?? 6
        if let budget = try args.value("max-bytes", as: "a size such as 250000, 500KB, 1.5MB or 1MiB", ByteSize.parse) {
            var byteBudget = ByteBudget(maxBytes: budget)
            byteBudget.minQuality = try integer("min-quality", in: 1...100) ?? 40
            let step = try integer("step", in: 1...99) ?? 5
            byteBudget.strategy = try args.value("search", as: "binary or step") {
                ["binary": SearchStrategy.binary, "step": .step(step)][$0]
            } ?? .binary
            byteBudget.allowDownscale = !args.has("no-downscale")
            if byteBudget.minQuality > settings.quality {
                throw UsageError(description: "--min-quality \(byteBudget.minQuality) is above --quality \(settings.quality); see 'imgprep \(args.command) --help'")
            }
            settings.budget = byteBudget
        }
        outputDirectory = args.value("output")
        recursive = args.has("recursive")
        filesFrom = args.value("files-from")
        nullSeparated = args.has("null")
        paths = args.positionals
        batch.jobs = try integer("jobs", in: 1...256) ?? batch.jobs
        batch.existing = args.has("update") ? .update : args.has("skip-existing") ? .skip : .overwrite
        batch.dryRun = args.has("dry-run")
        batch.preserveModificationTime = args.has("preserve-mtime")
        batch.failFast = args.has("fail-fast")
        batch.inPlace = args.has("in-place")
        if batch.inPlace && outputDirectory != nil {
            throw UsageError(description: "--in-place and -o/--output cannot be used together; see 'imgprep \(args.command) --help'")
        }
        report = args.has("json") ? .json : args.has("quiet") ? .quiet : args.has("verbose") ? .verbose : .normal
    }

    /// Collects input paths from arguments, --files-from, or piped standard input.
    func inputPaths() throws -> [String] {
        var result = paths
        if let filesFrom {
            let data: Data
            if filesFrom == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let bytes = try? RawPath.read(filesFrom) else {
                    throw UsageError(description: "cannot read --files-from '\(filesFrom)'")
                }
                data = Data(bytes)
            }
            result += split(data)
        } else if paths.isEmpty && isatty(STDIN_FILENO) == 0 {
            result += split(FileHandle.standardInput.readDataToEndOfFile())
        }
        return result
    }

    private func split(_ data: Data) -> [String] {
        let separator: UInt8 = nullSeparated ? 0 : UInt8(ascii: "\n")
        return data.split(separator: separator).map { line in
            var bytes = Array(line)
            if !nullSeparated, bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            return RawPath.decode(bytes)
        }.filter { !$0.isEmpty }
    }
}

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
    let signals = SignalWatcher(cancellation)
    reporter.start(total: jobs.count)
    var summary = await BatchRunner.run(jobs, settings: options.settings, options: options.batch,
                                        cancellation: cancellation) { outcome in reporter.report(outcome) }
    summary.failed += expanded.errors.count
    reporter.finish(summary)
    if summary.interrupted { return 128 + signals.received }
    return summary.failed > 0 ? 1 : 0
}

/// SIGINT/SIGTERM stop the batch from starting new files; in-flight files finish or are discarded,
/// their temporary files removed, and the run exits 130.
final class SignalWatcher {
    private let sources: [DispatchSourceSignal]
    private let first = FirstSignal()

    private final class FirstSignal: Sendable {
        let value = Atomic<Int32>(0)
    }

    /// The first signal that arrived (SIGINT → exit 130, SIGTERM → 143), or SIGINT if none did.
    var received: Int32 {
        let value = first.value.load(ordering: .relaxed)
        return value == 0 ? SIGINT : value
    }

    init(_ cancellation: CancellationFlag) {
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [first] in
                _ = first.value.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed)
                cancellation.cancel()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit { sources.forEach { $0.cancel() } }
}

struct ConvertCommand: Command {
    static let spec = CommandSpec(
        name: "convert",
        abstract: "convert HEIC/HEIF/AVIF (and JPEG/PNG) to upright JPEG or PNG with metadata intact",
        usage: "imgprep convert [options] FILE... | DIR... -r",
        options: [
            .value("to", nil, "FORMAT", "output format: jpeg or png", default: "jpeg"),
            .value("quality", "q", "N", "JPEG quality 1-100 (the ceiling when --max-bytes is given)", default: "85"),
            .value("png-compression", nil, "N", "zlib level for PNG output, 0 (fastest) to 9 (smallest)", default: "6"),
            .value("max-bytes", nil, "SIZE", "search for the highest JPEG quality that fits SIZE (see compress)"),
        ] + SharedOptions.image + SharedOptions.search + SharedOptions.batch,
        examples: [
            "imgprep convert IMG_0001.heic IMG_0002.HEIC --to jpeg",
            "imgprep convert photos/*.heic --to png -o out/",
            "imgprep convert *.heic --to jpeg --quality 90 --max-dimension 2048 -o upload/",
            "find photos -iname '*.heic' -print0 | imgprep convert -0 --files-from - -o out/",
        ])

    let options: BatchCommandOptions

    init(_ arguments: ParsedArguments) throws {
        var options = try BatchCommandOptions(arguments, defaultQuality: 85)
        options.settings.format = try arguments.value("to", as: "jpeg or png") {
            ["jpeg": OutputFormat.jpeg, "jpg": .jpeg, "png": .png][$0.lowercased()]
        } ?? .jpeg
        if options.settings.budget != nil && options.settings.format == .png {
            throw UsageError(description: "--max-bytes needs JPEG output, not --to png; see 'imgprep convert --help'")
        }
        self.options = options
    }

    func run() async -> Int32 { await runBatch(options, command: "convert") }
}

struct CompressCommand: Command {
    static let spec = CommandSpec(
        name: "compress",
        abstract: "write each image as the highest-quality JPEG that fits a byte budget",
        usage: "imgprep compress --max-bytes SIZE [options] FILE...",
        options: [
            .value("max-bytes", nil, "SIZE", "the budget, metadata included: 250000, 250000B, 500KB, 1.5MB (x1000), 512KiB, 1MiB (x1024)"),
            .value("quality", "q", "N", "highest quality the search may use", default: "95"),
            .flag("in-place", nil, "replace each input atomically, keeping its permissions"),
        ] + SharedOptions.search + SharedOptions.image + SharedOptions.batch,
        examples: [
            "imgprep compress --max-bytes 1MB IMG_0001.heic -o upload/",
            "imgprep compress --max-bytes 500KB --max-dimension 2048 photos/*.jpg -o upload/",
            "imgprep compress --max-bytes 1MiB --in-place assets/*.jpg",
            "imgprep compress --max-bytes 300KB --search step --step 5 --quality 90 cover.jpg -o out/",
        ],
        discussion: """
        A JPEG that is already within the budget and needs no resize, rotation or metadata change is
        copied byte for byte. When even --min-quality is over the budget the image is shrunk until it fits
        (or, with --no-downscale, the file fails and nothing is written).
        """)

    let options: BatchCommandOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.value("max-bytes") != nil else {
            throw UsageError(description: "compress needs --max-bytes SIZE; see 'imgprep compress --help'")
        }
        options = try BatchCommandOptions(arguments, defaultQuality: 95)
    }

    func run() async -> Int32 { await runBatch(options, command: "compress") }
}
