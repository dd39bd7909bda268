import Foundation

/// One unit of work: an input and where its output goes.
public struct BatchJob: Sendable, Equatable {
    public var input: String
    public var output: String
    /// Set when the job must not run (a missing input, two inputs writing one output, an output
    /// replacing an input): the file fails with this error.
    public var problem: ImagePrepError?
    /// `--to auto`: the formats the output may be written in; `output` then has the first one's extension
    /// until the picture is prepared, and the written name is `output(in:)`.
    public var outputFormats: [OutputFormat]?
    /// An http(s) or data: input (`input` is then what lines show): fetched into `readFrom` first.
    public var remote: RemoteInput?
    /// The file holding the input's bytes when it is not `input` itself (a fetched copy).
    public var readFrom: String?

    /// The file to read.
    public var readPath: String { readFrom ?? input }
    /// A web image set: the names its variants get that are known before the picture is prepared (those
    /// without `{hash}` or `{height}`, at the widths asked for); `output` is then only the first name.
    public var setOutputs: [String]?
    /// The `-r` directory the input was found under (a set's `{dir}` and mirrored folders).
    public var root: String?

    public init(input: String, output: String, problem: ImagePrepError? = nil, outputFormats: [OutputFormat]? = nil,
                setOutputs: [String]? = nil) {
        self.input = input
        self.output = output
        self.problem = problem
        self.outputFormats = outputFormats
        self.setOutputs = setOutputs
    }

    /// The output's name when written in `format` (for `--to auto`; otherwise `output` itself).
    public func output(in format: OutputFormat) -> String {
        outputFormats == nil ? output : OutputNaming.replacingExtension(of: output, with: format.fileExtension)
    }

    /// Every name the output may get: one, or one per `--to auto` format.
    public var possibleOutputs: [String] { setOutputs ?? outputFormats.map { $0.map(output(in:)) } ?? [output] }
}

/// A path given by the user and, for files found under a `-r` directory, that directory.
public struct InputPath: Sendable, Equatable {
    public var path: String
    public var root: String?
    /// An http(s) URL or a data: URI (`path` is then what lines show).
    public var remote: RemoteInput?

    public init(path: String, root: String? = nil) {
        self.path = path
        self.root = root
    }

    public init(remote: RemoteInput) {
        path = remote.shown
        self.remote = remote
    }
}

/// What the planning stages share: which files count as images and how paths compare.
public enum BatchPlan {
    /// The path with symlinks resolved when it exists, else just normalised (`out` and `./out/` match).
    static func canonicalPath(_ path: String) -> String {
        RawPath.resolved(path) ?? OutputNaming.normalize(path)
    }

    /// Reads just enough of a file to sniff it.
    static func looksLikeImage(_ path: String) -> Bool {
        guard let head = try? InputFile.head(path, count: 64) else { return false }
        switch FormatSniffer.sniff(head) {
        case .success: return true
        case .failure(let error): return error.kind == .unsupported  // an image we cannot read deserves a line
        }
    }
}
