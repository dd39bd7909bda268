import Foundation
import ImagePrep

/// Turns parsed options into library settings; shared by convert and compress.
struct BatchCommandOptions {
    var settings = ConversionSettings()
    var batch = BatchOptions()
    var outputDirectory: String?
    /// `-o NAME.jpg`: one input written to exactly this file (as vips, heif-convert and ImageMagick do),
    /// in the format its extension names.
    var outputFile: String?
    var outputFileFormat: OutputFormat?
    var recursive = false
    var paths: [String] = []
    var filesFrom: String?
    var nullSeparated = false
    var report = Reporter.Mode.normal
    let command: String

    init(_ args: ParsedArguments, defaultQuality: Int) throws {
        func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
            try args.value(name, as: "an integer from \(range.lowerBound) to \(range.upperBound)") {
                Int($0).flatMap { range.contains($0) ? $0 : nil }
            }
        }
        settings.quality = try integer("quality", in: 1...100) ?? defaultQuality
        settings.maxDimension = try integer("max-dimension", in: 1...1_000_000)
        settings.maxPixels = try integer("max-pixels", in: 1...Int(Int32.max) * 4) ?? settings.maxPixels
        settings.background = try args.value("background", as: "white, black or #rrggbb", RGBColor.init(parsing:)) ?? .white
        settings.stripLocation = args.has("strip-gps") || args.has("strip-location")
        settings.stripMetadata = args.has("strip-metadata")
        if args.value("subsampling") != "auto" {
            settings.subsampling = try args.value("subsampling", as: "auto, 420, 422 or 444") {
                ["420": .s420, "422": .s422, "444": .s444][$0]
            }
        }
        settings.jpeg.progressive = args.has("progressive")
        // Asking for a quality or a chroma layout asks for a re-encode; otherwise a JPEG that only needs
        // turning or new metadata keeps its coefficients.
        settings.losslessJPEG = args.value("quality") == nil && settings.subsampling == nil
        settings.pngCompressionLevel = try integer("png-compression", in: 0...9) ?? 6
        if let budget = try args.value("max-bytes", as: "a size such as 250000, 500KB, 1.5MB or 1MiB", ByteSize.parseWithFamily) {
            var byteBudget = ByteBudget(maxBytes: budget.bytes, family: budget.family)
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
        if let output = args.value("output") {
            if !RawPath.isDirectory(output), !output.hasSuffix("/"), let format = OutputFormat(fileExtensionOf: output) {
                outputFile = output
                outputFileFormat = format
            } else if RawPath.status(output) != nil, !RawPath.isDirectory(output) {
                throw UsageError(description: "-o \(output) is an existing file, not a directory; give a directory, or a name ending in .jpg or .png for a single input; see 'imgprep \(args.command) --help'")
            } else {
                outputDirectory = output
            }
        }
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
        if batch.inPlace && (outputDirectory != nil || outputFile != nil) {
            throw UsageError(description: "--in-place and -o/--output cannot be used together; see 'imgprep \(args.command) --help'")
        }
        report = args.has("json") ? .json : args.has("quiet") ? .quiet : args.has("verbose") ? .verbose : .normal
        command = args.command
    }

    /// `-o NAME.jpg` names one output: several inputs (or a directory to search) are a usage error.
    func checkOutputFile(inputCount: Int) throws {
        guard let outputFile, recursive || inputCount > 1 else { return }
        let what = recursive ? "-r searches directories" : "\(inputCount) inputs were given"
        throw UsageError(description: "-o \(outputFile) names one output file but \(what); use -o DIR for several")
    }

    /// Collects input paths from arguments, --files-from, or piped standard input. No paths at all is a
    /// usage error, unless they came from a list (a pipe, a file, --files-from) that was empty: a `find`
    /// that matched nothing.
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
        } else if paths.isEmpty && Self.standardInputIsAList {
            result += split(FileHandle.standardInput.readDataToEndOfFile())
        } else if paths.isEmpty {
            throw UsageError(description: "no input files; see 'imgprep \(command) --help'")
        }
        return result
    }

    /// A pipe or a redirected file: paths may come that way. A terminal, or /dev/null (cron, a CI step
    /// with no input), is not a list: no paths there means the user forgot them.
    static var standardInputIsAList: Bool {
        var info = stat()
        guard fstat(STDIN_FILENO, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFREG || type == S_IFSOCK
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
