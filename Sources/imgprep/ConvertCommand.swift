import ImagePrep

struct ConvertCommand: Command {
    static let spec = CommandSpec(
        name: "convert",
        abstract: "convert \(Formats.list(Formats.readers.map(\.displayName), "and")) to upright \(OutputFormatHelp.names(OutputFormat.allCases)) with metadata intact (animations stay animated in \(OutputFormatHelp.names(OutputFormatHelp.animated, "and")))",
        usage: "imgprep convert [options] FILE... | DIR... -r",
        options: [Option.to, Option.quality, Option.targetScore, Option.autoFormats, Flag.lossless, Option.maxBytes]
            + SharedOptions.set + SharedOptions.image(writing: OutputFormat.allCases) + SharedOptions.search + SharedOptions.batch,
        examples: [
            "imgprep convert IMG_0001.heic IMG_0002.HEIC --to jpeg",
            "imgprep convert photos/*.heic --to png -o out/",
            "imgprep convert *.heic --to jpeg --quality 90 --max-dimension 2048 -o upload/",
            "imgprep convert photos/*.heic --to webp -o web/",
            "imgprep convert photos/*.heic --to avif --quality 50 --max-dimension 2048 -o web/",
            "imgprep convert downloads/*.webp --to jpeg --color srgb -o upload/",
            "imgprep convert photos/*.jpg --to auto --quality auto --max-dimension 2048 -o web/",
            "find photos -iname '*.heic' -print0 | imgprep convert -0 --files-from - -o out/",
            "imgprep convert photos/*.heic --to avif,webp,jpeg --widths 480,960,1920 --manifest web/images.json -o web/img/",
        ])

    let options: BatchCommandOptions

    init(_ arguments: ParsedArguments) throws {
        var options = try BatchCommandOptions(arguments, formats: OutputFormat.allCases, defaultQuality: \.defaultQuality)
        if arguments[.lossless] {
            guard options.settings.format.writer.offersLosslessMode else {
                let lossless = Formats.list(OutputFormatHelp.lossless.map(\.writer.displayName), "and")
                throw UsageError(description: "--lossless is for --to \(Formats.list(OutputFormatHelp.withLosslessMode.map(\.rawValue))) (\(lossless) is always lossless); see 'imgprep convert --help'")
            }
            guard options.settings.budget == nil else {
                throw UsageError(description: "--lossless and --max-bytes cannot be used together: a lossless file has no quality to search; see 'imgprep convert --help'")
            }
            options.settings.lossless = true
        }
        self.options = options
    }

    func run() async -> Int32 { await runBatch(options, command: "convert") }
}
