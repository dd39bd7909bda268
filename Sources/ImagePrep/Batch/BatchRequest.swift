import Foundation

/// Everything one batch needs, as a convert or compress command line says it: what to read, where to
/// write, what to write (`settings`, the only part that decides output bytes), and how to schedule it.
/// `Batch.init` checks it and opens what it names.
public struct BatchRequest: Sendable {
    /// Files, directories (walked with `recursive`) and http(s): or data: URLs, in order.
    public var inputs: [String]
    /// More paths, read from a descriptor as they arrive (a pipe from `find`, a list file).
    public var list: JobSource.List?
    public var recursive = false
    /// Outputs go here; nil writes each beside its input (or over it, with `options.inPlace`).
    public var outputDirectory: String?
    /// One input written to exactly this path.
    public var outputFile: String?
    /// What to write: format, size, quality or target, metadata.
    public var settings: ConversionSettings
    /// How to run: lanes (`jobs`), fail-fast, dry run, existing outputs, in place.
    public var options = BatchOptions()
    /// How a web image set's outputs are named (`settings.set` says what they are); nil names them
    /// `{name}-{width}.{ext}`, or `{name}.{ext}` without widths, in `outputDirectory`.
    public var set: SetOutputs?
    /// The sets' manifest, written when the batch ends (with `settings.set` only).
    public var manifest: ManifestOptions?
    /// Where each file is prepared.
    public var isolation = Isolation.inProcess
    /// Seconds one file may take (nil: no limit).
    public var timeout: Double? = 600
    /// Bytes the files in flight may be estimated to need together.
    public var memoryLimit = MemoryBudget.defaultLimit() ?? Int.max
    /// This copy's share of the inputs, when several copies split one batch.
    public var shard: ShardSpec?
    /// A directory of earlier outputs reused when input and settings match, and its size limit.
    public var cacheDirectory: String?
    public var cacheMaxSize = OutputCache.defaultMaxSize
    /// How URL inputs are fetched.
    public var fetch = FetchOptions()
    /// Paths that are neither inputs nor outputs (a list file read by path).
    public var protectedPaths: [String] = []

    public enum Isolation: Sendable {
        /// On threads of this process: a crash in a decoder ends the process.
        case inProcess
        /// In worker processes started as `executable arguments…`, which must answer with
        /// `WorkerServer.serve()`: a crash or a hang costs one file.
        case workers(executable: String, arguments: [String])
    }

    public init(inputs: [String], settings: ConversionSettings) {
        self.inputs = inputs
        self.settings = settings
    }
}

/// A request `Batch` cannot start: the text says what to change.
public struct BatchRequestError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
