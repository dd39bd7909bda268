import Foundation
import ImagePrep

/// `--manifest FILE` and what its markup says.
extension BatchCommandOptions {
    /// The options of a web image set, checked against each other before any file is read: names two
    /// variants of one input would share are a usage error here.
    mutating func readSetOptions(_ args: ParsedArguments, formats: [OutputFormat], defaultQuality: (OutputFormat) -> Int,
                                 widthBudgets: [WidthBudget]) throws {
        func refuse(_ text: String) -> UsageError { UsageError(description: "\(text); see 'imgprep \(args.command) --help'") }
        if args[.to] == .auto { throw refuse("--to auto writes one output per input, not a set (--widths, --box, --manifest, --name)") }
        if outputFile != nil { throw refuse("-o \(outputFile ?? "") names one file; a set writes several: give -o DIR and --name") }
        if batch.inPlace { throw refuse("--in-place replaces one file; a set writes several") }
        if settings.maxDimension != nil, args[.widths] != nil || args[.box] != nil {
            throw refuse("--max-dimension and --widths/--box cannot be used together: --widths and --box give the sizes")
        }
        if settings.lossless { throw refuse("--lossless is for a single output, not a set") }
        let widths = args[.widths]
        if let missing = widthBudgets.first(where: { budget in widths?.contains(budget.width) != true }) {
            throw refuse("--max-bytes \(missing.width):… names a width --widths does not list")
        }
        if args[.box] == nil, args[.fit] != nil || args[.crop] != nil { throw refuse("--fit and --crop are for --box") }
        if args[.crop] != nil, (args[.fit] ?? .inside) != .cover { throw refuse("--crop is for --fit cover") }
        // A skipped input would be missing from the manifest (its caption, colour and placeholder come from
        // the picture): the cache is what makes a repeated run with a manifest quick.
        if args[.manifest] != nil, batch.existing != .overwrite {
            throw refuse("--manifest describes every input, so none may be skipped (--update, --skip-existing); use --cache to make repeated runs quick")
        }
        if args[.manifest] == nil, let unused = [args[.sizes] == nil ? nil : "sizes", args[.baseURL] == nil ? nil : "base-url",
                                                 args[.placeholder] == nil ? nil : "placeholder"].compactMap({ $0 }).first {
            throw refuse("--\(unused) is for --manifest")
        }
        let explicitQuality = args[.quality] != nil || settings.scoreTarget != nil
        var set = SetSettings(formats: formats.map { FormatQuality(format: $0, quality: explicitQuality ? settings.quality : defaultQuality($0)) })
        set.widths = widths
        set.box = args[.box]
        set.fit = args[.fit] ?? .inside
        set.crop = args[.crop] ?? .center
        set.widthBudgets = widthBudgets
        // Without a manifest nothing shows a placeholder: none is made.
        set.placeholder = args[.manifest] == nil ? .none : args[.placeholder] ?? .thumbhash
        if let budget = settings.budget ?? widthBudgets.first?.budget,
           let low = set.formats.first(where: { $0.format.writer.traits.isLossy && $0.quality < budget.minQuality }) {
            throw refuse("--min-quality \(budget.minQuality) is above \(low.format.rawValue)'s quality \(low.quality)")
        }
        settings.set = set

        let template = args[.name] ?? (widths == nil ? SetNaming.withoutWidths : SetNaming.withWidths)
        if let problem = SetNaming.problem(in: template) { throw refuse("--name: \(problem)") }
        let naming = SetNaming(template: template, outputDirectory: outputDirectory)
        let outputs = SetOutputs(naming: naming, formats: formats, widths: widths)
        if let shared = naming.duplicate(formats: formats, widths: outputs.widths) {
            throw UsageError(description: "--name \(template) gives two outputs of one input the same name (\(RawPath.split(shared).name)); add {width} or {ext}; see 'imgprep \(args.command) --help'")
        }
        setOutputs = outputs
        // The arguments are the whole list: two of them naming one output is a usage error too (the
        // planner refuses such a name later only for inputs found by -r or read from a list).
        if !recursive, filesFrom == nil {
            // Keyed by bytes: `café` in NFC and in NFD are two files, whose outputs are two files too.
            var claimed: [[UInt8]: String] = [:]
            for path in paths where naming.escape(input: path, root: nil, format: formats.first ?? settings.format) == nil {  // that one fails alone
                let input = OutputNaming.normalize(path)
                for name in outputs.names(for: InputPath(path: path)) where SetOutputs.isKnown(name) {
                    let key = RawPath.bytes(OutputNaming.normalize(name))
                    if let first = claimed[key], RawPath.bytes(first) != RawPath.bytes(input) {
                        throw UsageError(description: "\(first) and \(path) would both write \(name); rename one, use separate output directories or add {dir} or {hash} to --name; see 'imgprep \(args.command) --help'")
                    }
                    claimed[key] = input
                }
            }
        }
        if let path = args[.manifest] {
            let files = paths.compactMap(InputSource.localPath).filter { !RawPath.isDirectory($0) }
            let known = files.flatMap { outputs.names(for: InputPath(path: $0)).filter(SetOutputs.isKnown) }
            if let problem = ManifestTarget.problem(manifest: path, inputs: paths, recursive: recursive, list: filesFrom, outputs: known) {
                throw UsageError(description: "\(problem); see 'imgprep \(args.command) --help'")
            }
        }
        manifest = args[.manifest].map { ManifestOptions(path: $0, sizes: args[.sizes] ?? "100vw", baseURL: args[.baseURL]) }
    }
}
