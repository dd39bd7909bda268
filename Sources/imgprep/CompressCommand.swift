import ImagePrep

struct CompressCommand: Command {
    /// The lossy formats and those with a palette mode: a byte budget needs a quality to search.
    static let formats = OutputFormatHelp.budgeted

    static let spec = CommandSpec(
        name: "compress",
        abstract: "write each image as the highest-quality \(Formats.list(formats.map(\.writer.displayName))) that fits a byte budget",
        usage: "imgprep compress --max-bytes SIZE [options] FILE...",
        options: [
            Option.maxBytes.described("the budget, metadata included: 250000, 250000B, 500KB or 500k, 1.5MB or 1.5M (x1000), 512KiB, 1MiB (x1024); a lowercase b is a bit, refused"),
            Option.format(among: formats, "output format: \(Formats.list(formats.map(\.rawValue)))"),
            Option.quality.described("highest quality the search may use, or auto: the lowest that reaches --target-score within the budget", default: "95"),
            Option.targetScore, Option.autoFormats,
            Flag.inPlace,
        ] + SharedOptions.search + SharedOptions.image(writing: formats) + SharedOptions.batch,
        examples: [
            "imgprep compress --max-bytes 1MB IMG_0001.heic -o upload/",
            "imgprep compress --max-bytes 500KB --max-dimension 2048 photos/*.jpg -o upload/",
            "imgprep compress --max-bytes 1MiB --in-place assets/*.jpg assets/*.png",
            "imgprep compress --max-bytes 300KB --search step --step 5 --quality 90 cover.jpg -o out/",
            "imgprep compress --to webp --max-bytes 300KB -r assets/ -o dist/",
            "imgprep compress --to avif --max-bytes 150KB hero.heic -o dist/",
            "imgprep compress --max-bytes 500KB --quality auto --target-score 85 photos/*.jpg -o upload/",
        ],
        discussion: """
        A JPEG that is already within the budget and needs no resize, rotation or metadata change is
        copied byte for byte. When even --min-quality is over the budget the image is shrunk until it fits
        (or, with --no-downscale, the file fails and nothing is written).
        Without --to, a photo becomes a JPEG, and a screenshot, chart, icon or other graphic in a PNG or
        GIF stays a full-size PNG: lossless when that fits, else a palette, and a JPEG only when neither
        fits (with -o DIR, where its PNG does not replace the input). With --in-place every file keeps its
        format: a PNG stays a PNG, a photo in one included, and fails when no PNG of it fits.
        """)

    let options: BatchCommandOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments[.maxBytes] != nil else {
            throw UsageError(description: "compress needs --max-bytes SIZE; see 'imgprep compress --help'")
        }
        var options = try BatchCommandOptions(arguments, formats: Self.formats, defaultQuality: { _ in 95 })
        // Without --to, a graphic in a lossless file may keep a lossless format (GraphicRoute).
        if arguments[.to] == nil, options.outputFile == nil, !options.toStandardOutput, options.setOutputs == nil {
            options.settings.graphicFormat = OutputFormatHelp.paletted.first
        }
        self.options = options
        // In place, a file keeps its format (and so its name): JPEGs stay JPEGs, and without --to a PNG stays
        // a PNG through the graphic route.
        if options.batch.inPlace && (!options.settings.format.writer.replacesInPlace || options.settings.autoFormats != nil) {
            let replaced = Formats.list(Formats.writers.filter(\.replacesInPlace).map(\.displayName), "and")
            throw UsageError(description: "--in-place replaces \(replaced) files with files of their own format; with --to \(options.settings.autoFormats == nil ? options.settings.format.rawValue : "auto") use -o DIR; see 'imgprep compress --help'")
        }
    }

    func run() async -> Int32 { await runBatch(options, command: "compress") }
}
