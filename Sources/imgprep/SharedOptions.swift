import ImagePrep

/// Options shared by convert and compress: what to read, where to write, how to report.
enum SharedOptions {
    /// For a command that writes `formats`: their writers' own options (WriterOptions) after the shared chroma choice.
    static func image(writing formats: [OutputFormat]) -> [any DeclaredOption] {
        [Option.output, Option.maxDimension, Option.background, Flag.stripLocation, Flag.stripGPS, Flag.stripMetadata,
         Option.color, Option.hdr, Option.subsampling] + WriterOptions.declared(writing: formats)
            + [Option.maxPixels, Option.maxInputSize, Flag.allowTruncated]
    }
    /// A web image set (convert): several outputs per input, their names, boxes and the manifest.
    static let set: [any DeclaredOption] = [
        Option.widths, Option.name, Option.box, Option.fit, Option.crop, Option.manifest, Option.sizes, Option.baseURL,
        Option.placeholder,
    ]
    static let search: [any DeclaredOption] = [Option.minQuality, Option.search, Option.step, Flag.noDownscale]
    static let batch: [any DeclaredOption] = [
        Flag.recursive, Option.filesFrom, Flag.null, Option.jobs, Option.memoryLimit, Option.shard, Option.cache,
        Option.cacheMaxSize, Option.httpCache, Flag.noNetwork, Option.cacert, Flag.allowCredentials, Option.timeout, Flag.skipExisting, Flag.update, Flag.dryRun, Flag.preserveMtime,
        Flag.failFast, Flag.json, Flag.quiet, Flag.verbose, Flag.help,
    ]
}
