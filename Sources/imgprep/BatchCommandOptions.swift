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
    /// `-o -`: the one output goes to standard output.
    var toStandardOutput = false
    var recursive = false
    var paths: [String] = []
    var filesFrom: String?
    var nullSeparated = false
    var report = Reporter.Mode.normal
    /// Seconds one file may take in its worker (nil: no limit).
    var timeout: Double? = 600
    /// Bytes the files in flight may be estimated to need together.
    var memoryLimit = MemoryBudget.defaultLimit() ?? Int.max
    /// This copy's share of the inputs (--shard K/N or auto).
    var shard: ShardSpec?
    /// The output cache directory (--cache, or IMGPREP_CACHE) and its size limit.
    var cacheDirectory: String?
    var cacheMaxSize = OutputCache.defaultMaxSize
    /// How URL inputs are fetched (--http-cache, --no-network, --cacert, --allow-credentials, --timeout).
    var fetch = FetchOptions()
    /// A web image set: the names of its variants (nil: one output per input).
    var setOutputs: SetOutputs?
    /// `--manifest FILE` and how its markup is written.
    var manifest: ManifestOptions?
    let command: String

    /// - Parameters:
    ///   - formats: what the command writes (its `--to` takes these; `Formats.defaultOutput` when it is absent).
    ///   - defaultQuality: `--quality` when absent, by output format.
    init(_ args: ParsedArguments, formats: [OutputFormat], defaultQuality: (OutputFormat) -> Int) throws {
        let names = formats.map(\.rawValue)
        let formatNames = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        let choice = args[.to]
        let listed: [OutputFormat]? = if case .formats(let formats) = choice { formats } else { nil }
        let requested = choice?.format ?? listed?.first
        let makesSet = listed != nil || args[.widths] != nil || args[.box] != nil || args[.manifest] != nil || args[.name] != nil
        if let output = args[.output] {
            if output == "-" {
                toStandardOutput = true
            } else if !RawPath.isDirectory(output), !output.hasSuffix("/"), let format = OutputFormat(fileExtensionOf: output) {
                outputFile = output
                outputFileFormat = format
            } else if let info = RawPath.status(Self.withoutTrailingSlashes(output)), info.st_mode & S_IFMT != S_IFDIR {
                // `-o afile/` too: the same mistake, not a failure at the first write.
                throw UsageError(description: "-o \(output) is an existing file, not a directory; give a directory, or a new file name ending in .\(formats.map(\.fileExtension).joined(separator: ", .")) for a single input; see 'imgprep \(args.command) --help'")
            } else if !output.hasSuffix("/"), RawPath.status(output) == nil, let ext = Self.unwrittenImageExtension(output) {
                throw UsageError(description: "-o \(output) names a .\(ext) file, which imgprep does not write; give a file name ending in .\(formats.map(\.fileExtension).joined(separator: ", .")), or -o \(output)/ for a directory of that name; see 'imgprep \(args.command) --help'")
            } else {
                outputDirectory = output
            }
        }
        if choice == .auto, let outputFile {
            throw UsageError(description: "--to auto chooses the format per picture, so -o \(outputFile) cannot name the output; give -o DIR; see 'imgprep \(args.command) --help'")
        }
        if let requested, let named = outputFileFormat, named != requested {
            throw UsageError(description: "--to \(requested.rawValue) disagrees with -o \(outputFile ?? ""); see 'imgprep \(args.command) --help'")
        }
        if let named = outputFileFormat, !formats.contains(named) {
            throw UsageError(description: "\(args.command) writes \(formatNames), not -o \(outputFile ?? ""); see 'imgprep \(args.command) --help'")
        }
        // `-o out.png` alone says PNG, as it does for vips and ImageMagick.
        settings.format = requested ?? outputFileFormat ?? Formats.defaultOutput
        let autoFormats = (args[.autoFormats] ?? OutputFormatHelp.defaultAutoFormats).filter(formats.contains)
        if choice == .auto, let first = autoFormats.first {
            settings.format = first
        } else if args[.autoFormats] != nil {
            throw UsageError(description: "--auto-formats is for --to auto; see 'imgprep \(args.command) --help'")
        }
        let qualityChoice = args[.quality]
        if qualityChoice != nil, qualityChoice != .auto, args[.targetScore] != nil {
            throw UsageError(description: "--target-score is for --quality auto, not --quality \(qualityChoice?.fixed ?? 0); see 'imgprep \(args.command) --help'")
        }
        if qualityChoice == .auto || args[.targetScore] != nil {
            // The search's ceiling: the whole range (a lossless format ignores it, as it ignores --quality).
            settings.quality = 100
            settings.scoreTarget = ScoreTarget(score: args[.targetScore] ?? ScoreTarget.defaultScore)
            settings.scoreTarget?.minQuality = args[.minQuality] ?? 1
        } else {
            settings.quality = qualityChoice?.fixed ?? defaultQuality(settings.format)
        }
        if choice == .auto {
            guard settings.scoreTarget != nil || args[.maxBytes] != nil else {
                throw UsageError(description: "--to auto writes the smallest format that meets a target: give --quality auto (with --target-score) or --max-bytes; see 'imgprep \(args.command) --help'")
            }
            // Without --quality, each format's own ceiling (its default, for convert).
            let explicit = args[.quality] != nil || settings.scoreTarget != nil
            let ceiling = settings.quality
            settings.autoFormats = autoFormats.map { FormatQuality(format: $0, quality: explicit ? ceiling : defaultQuality($0)) }
        }
        // A lossless format with a palette mode (PNG) takes a quality, a target or a budget as asking for it.
        if settings.autoFormats == nil && !makesSet && OutputFormatHelp.paletted.contains(settings.format) {
            settings.palette = args[.quality] != nil || settings.scoreTarget != nil || args[.maxBytes] != nil
        }
        settings.color = args[.color] ?? .keep
        settings.hdr = args[.hdr] ?? .keep
        settings.maxDimension = args[.maxDimension]
        settings.maxPixels = args[.maxPixels] ?? settings.maxPixels
        batch.maxInputBytes = args[.maxInputSize] ?? batch.maxInputBytes
        settings.background = args[.background] ?? .white
        settings.stripLocation = args[.stripGPS] || args[.stripLocation]
        settings.stripMetadata = args[.stripMetadata]
        settings.allowsTruncated = args[.allowTruncated]
        if case .fixed(let subsampling) = args[.subsampling] { settings.subsampling = subsampling }
        settings.formatOptions = WriterOptions.values(in: args, writing: formats)
        // Asking for a quality or a chroma layout asks for a re-encode; otherwise an input in the output
        // format that only needs turning or new metadata keeps its coded picture.
        settings.keepsInputCoding = args[.quality] == nil && settings.subsampling == nil && settings.scoreTarget == nil
            && settings.autoFormats == nil
        let searchBudget = { (given: ByteBudget) -> ByteBudget in
            var byteBudget = given
            byteBudget.minQuality = args[.minQuality] ?? 40
            byteBudget.strategy = switch args[.search] ?? .binary {
            case .binary: .binary
            case .step: .step(args[.step] ?? 5)
            }
            byteBudget.allowDownscale = !args[.noDownscale]
            return byteBudget
        }
        if let perWidth = args[.maxBytes]?.perWidth, !perWidth.isEmpty, args[.widths] == nil {
            throw UsageError(description: "--max-bytes WIDTH:SIZE is for --widths; see 'imgprep \(args.command) --help'")
        }
        if let given = args[.maxBytes]?.all ?? args[.maxBytes]?.perWidth.first?.budget {
            let byteBudget = searchBudget(given)
            if let auto = settings.autoFormats, let low = auto.first(where: { $0.quality < byteBudget.minQuality }) {
                throw UsageError(description: "--min-quality \(byteBudget.minQuality) is above \(low.format.rawValue)'s quality \(low.quality); see 'imgprep \(args.command) --help'")
            }
            if byteBudget.minQuality > settings.quality {
                throw UsageError(description: "--min-quality \(byteBudget.minQuality) is above --quality \(settings.quality); see 'imgprep \(args.command) --help'")
            }
            settings.budget = args[.maxBytes]?.all.map(searchBudget)
            // A web set writes no palettes yet: only its lossy formats take a budget.
            let searchable = makesSet ? OutputFormatHelp.lossy : OutputFormatHelp.budgeted
            if !(listed ?? [settings.format]).contains(where: searchable.contains) {
                throw UsageError(description: "--max-bytes needs a lossy format (\(Formats.list(searchable.map(\.rawValue)))), not --to \(settings.format.rawValue); see 'imgprep \(args.command) --help'")
            }
        }
        recursive = args[.recursive]
        filesFrom = args[.filesFrom]
        nullSeparated = args[.null]
        paths = args.positionals
        batch.jobs = args[.jobs] ?? batch.jobs
        memoryLimit = args[.memoryLimit] ?? memoryLimit
        if let seconds = args[.timeout] { timeout = seconds == 0 ? nil : seconds }
        shard = args[.shard]
        cacheDirectory = OutputCache.directory(option: args[.cache], environment: ProcessInfo.processInfo.environment)
        cacheMaxSize = args[.cacheMaxSize] ?? cacheMaxSize
        fetch = Self.fetchOptions(args, cache: cacheDirectory, timeout: timeout, maxBytes: batch.maxInputBytes)
        batch.existing = args[.update] ? .update : args[.skipExisting] ? .skip : .overwrite
        batch.dryRun = args[.dryRun]
        batch.preserveModificationTime = args[.preserveMtime]
        batch.failFast = args[.failFast]
        batch.inPlace = args[.inPlace]
        if batch.inPlace && (outputDirectory != nil || outputFile != nil) {
            throw UsageError(description: "--in-place and -o/--output cannot be used together; see 'imgprep \(args.command) --help'")
        }
        report = args[.json] ? .json : args[.quiet] ? .quiet : args[.verbose] ? .verbose : .normal
        command = args.command
        if makesSet {
            try readSetOptions(args, formats: listed ?? [settings.format], defaultQuality: defaultQuality,
                               widthBudgets: (args[.maxBytes]?.perWidth ?? []).map { WidthBudget(width: $0.width, budget: searchBudget($0.budget)) })
        } else if let unused = [args[.fit] == nil ? nil : "fit", args[.crop] == nil ? nil : "crop", args[.sizes] == nil ? nil : "sizes",
                                args[.baseURL] == nil ? nil : "base-url", args[.placeholder] == nil ? nil : "placeholder"].compactMap({ $0 }).first {
            throw UsageError(description: "--\(unused) is for a set (--widths, --box, --manifest or a list in --to); see 'imgprep \(args.command) --help'")
        }
    }

    /// Extensions of image files, whether imgprep reads them or not: `-o cover.gif` is a file name, not
    /// a directory to create.
    static let imageExtensions: Set<String> = [
        "gif", "tif", "tiff", "bmp", "jxl", "jp2", "j2k", "jpx", "jfif", "ico", "svg", "psd", "dng", "raw", "cr2", "cr3",
        "nef", "arw", "orf", "rw2", "heics", "avifs", "apng", "qoi", "tga", "ppm", "pgm", "pbm", "pnm", "exr", "hdr",
    ]

    /// Those no writer writes (a writer's extensions name its outputs instead, see `OutputFormat(fileExtensionOf:)`).
    static let unwrittenImageExtensions = imageExtensions.subtracting(OutputFormat.allCases.flatMap(\.fileExtensions))

    /// The extension of `path`'s last component (lowercased) when it is one of `unwrittenImageExtensions`.
    static func unwrittenImageExtension(_ path: String) -> String? {
        let name = RawPath.split(path).name
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        return unwrittenImageExtensions.contains(ext) ? ext : nil
    }

    static func withoutTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// Whether this run is one picture through pipes: `-` as the input, or `-o -`.
    var usesPipes: Bool { toStandardOutput || paths.contains("-") }

    /// A run through pipes reads one input (`-`: standard input) and writes standard output (`-o -`):
    /// anything that would make more outputs, or print on standard output too, is a usage error.
    func checkPipes(listGiven: Bool) throws {
        guard usesPipes else { return }
        let see = "see 'imgprep \(command) --help'"
        guard toStandardOutput else {
            throw UsageError(description: "- reads the picture from standard input and writes it to standard output: add -o -; \(see)")
        }
        if recursive || listGiven || paths.count != 1 {
            throw UsageError(description: "-o - writes one picture to standard output, but \(recursive ? "-r searches directories" : listGiven ? "a list of paths was given" : "\(paths.count) inputs were given"); \(see)")
        }
        if setOutputs != nil || settings.autoFormats != nil {
            throw UsageError(description: "-o - writes one picture to standard output; a set or --to auto writes several or names them per picture; \(see)")
        }
        if report == .json { throw UsageError(description: "--json prints on standard output, which -o - gives to the picture; \(see)") }
        if batch.inPlace || batch.dryRun { throw UsageError(description: "-o - cannot be used with \(batch.inPlace ? "--in-place" : "--dry-run"); \(see)") }
        // As gzip and zstd do: a picture's bytes on a terminal are garbage, and can leave it in a bad state.
        if isatty(STDOUT_FILENO) != 0 {
            throw UsageError(description: "-o - writes the picture's bytes to standard output, which is a terminal; redirect it (> out.jpg) or pipe it on (| next-command), or write a file with -o NAME; \(see)")
        }
        if paths == ["-"], isatty(STDIN_FILENO) != 0 {
            throw UsageError(description: "- reads the picture from standard input, which is a terminal; pipe a file in (< photo.heic); \(see)")
        }
    }

    /// `-o NAME.jpg` names one output: several inputs, a list or a directory to search are a usage error.
    func checkOutputFile(listGiven: Bool) throws {
        guard let outputFile, recursive || listGiven || InputCount.distinct(paths) > 1 else { return }
        let what = recursive ? "-r searches directories" : listGiven ? "a list of paths was given" : "\(InputCount.distinct(paths)) inputs were given"
        throw UsageError(description: "-o \(outputFile) names one output file but \(what); use -o DIR for several")
    }

    /// Where a list of paths is read from: --files-from FILE (`-`: standard input), or standard input
    /// when it is a pipe or a file and no path was given. nil: the arguments are the whole list.
    func list() throws -> JobSource.List? {
        if let filesFrom {
            if filesFrom == "-" {
                var info = stat()
                if fstat(STDIN_FILENO, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                    throw UsageError(description: "cannot read --files-from -: standard input is a directory, not a list of paths")
                }
                return JobSource.List(descriptor: STDIN_FILENO, nullSeparated: nullSeparated)
            }
            return JobSource.List(descriptor: try Self.openList(filesFrom), nullSeparated: nullSeparated, name: filesFrom)
        }
        if paths.isEmpty && Self.standardInputIsAList {
            return JobSource.List(descriptor: STDIN_FILENO, nullSeparated: nullSeparated)
        }
        return nil
    }

    /// A regular file, or a named pipe (waited on until a writer comes: that is what it is for; a
    /// signal still ends the wait). Anything else, a directory above all, is a usage error, not a list
    /// that reads as empty.
    static func openList(_ path: String) throws -> Int32 {
        func refuse(_ reason: String) -> UsageError {
            UsageError(description: "cannot read --files-from '\(path)': \(reason)")
        }
        switch RegularFile.open(path) {
        case .success(let opened):
            return opened.fd
        case .failure(.failed(let code)):
            throw refuse(String(cString: strerror(code)))
        case .failure(.notRegular(_, S_IFIFO)):
            let fd = RawPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
            guard fd >= 0 else { throw refuse(String(cString: strerror(errno))) }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
                close(fd)
                throw refuse("it changed while being opened")
            }
            return fd
        case .failure(.notRegular(let what, _)):
            throw refuse("it is \(what), not a list of paths (a file or a pipe)")
        }
    }

    /// A pipe or a redirected file: paths may come that way. A terminal, or /dev/null (cron, a CI step
    /// with no input), is not a list: no paths there means the user forgot them.
    static var standardInputIsAList: Bool {
        var info = stat()
        guard fstat(STDIN_FILENO, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFREG || type == S_IFSOCK
    }
}

extension BatchCommandOptions {
    /// The HTTP cache is `http/` inside the output cache unless --http-cache names one.
    static func fetchOptions(_ args: ParsedArguments, cache: String?, timeout: Double?, maxBytes: Int) -> FetchOptions {
        var fetch = FetchOptions()
        fetch.noNetwork = args[.noNetwork]
        fetch.allowCredentials = args[.allowCredentials]
        fetch.caFile = args[.cacert]
        fetch.httpCacheDirectory = args[.httpCache] ?? cache.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + "http" }
        fetch.timeout = timeout
        fetch.maxBytes = maxBytes
        return fetch
    }
}
