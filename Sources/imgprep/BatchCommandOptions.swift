import Foundation
import ImagePrep

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

    /// - Parameters:
    ///   - formats: what `--to` accepts (jpeg when it is absent).
    ///   - defaultQuality: `--quality` when absent, by output format.
    init(_ args: ParsedArguments, formats: [OutputFormat], defaultQuality: (OutputFormat) -> Int) throws {
        func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
            try args.value(name, as: "an integer from \(range.lowerBound) to \(range.upperBound)") {
                Int($0).flatMap { range.contains($0) ? $0 : nil }
            }
        }
        let names = formats.map(\.rawValue)
        settings.format = try args.value("to", as: names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")) { text in
            let name = text.lowercased() == "jpg" ? "jpeg" : text.lowercased()
            return formats.first { $0.rawValue == name }
        } ?? .jpeg
        settings.quality = try integer("quality", in: 1...100) ?? defaultQuality(settings.format)
        settings.color = try args.value("color", as: "keep or srgb") { ColorHandling(rawValue: $0.lowercased()) } ?? .keep
        settings.maxDimension = try integer("max-dimension", in: 1...1_000_000)
        settings.maxPixels = try integer("max-pixels", in: 1...Int(Int32.max) * 4) ?? settings.maxPixels
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
            if settings.format == .png {
                throw UsageError(description: "--max-bytes needs a lossy format (jpeg, webp, avif or heic), not --to png; see 'imgprep \(args.command) --help'")
            }
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
