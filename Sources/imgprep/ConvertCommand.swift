import ImagePrep

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
        let requested = try arguments.value("to", as: "jpeg or png") {
            ["jpeg": OutputFormat.jpeg, "jpg": .jpeg, "png": .png][$0.lowercased()]
        }
        if let requested, let named = options.outputFileFormat, named != requested {
            throw UsageError(description: "--to \(requested.rawValue) disagrees with -o \(options.outputFile ?? ""); see 'imgprep convert --help'")
        }
        // `-o out.png` alone says PNG, as it does for vips and ImageMagick.
        options.settings.format = requested ?? options.outputFileFormat ?? .jpeg
        if options.settings.budget != nil && options.settings.format == .png {
            throw UsageError(description: "--max-bytes needs JPEG output, not --to png; see 'imgprep convert --help'")
        }
        self.options = options
    }

    func run() async -> Int32 { await runBatch(options, command: "convert") }
}
