/// The result for one input, streamed as soon as it is known.
public struct FileOutcome: Sendable {
    public enum Status: String, Sendable { case ok, skipped, failed }

    public var job: BatchJob
    public var status: Status
    /// Why it failed, or why it was skipped.
    public var reason: String?
    /// What kind of failure, for scripts to branch on (nil unless failed).
    public var errorKind: ImagePrepError.Kind?
    /// Where it failed (nil unless failed).
    public var errorStage: PipelineStage?
    public var format: OutputFormat?
    public var width: Int?
    public var height: Int?
    public var bytes: Int?
    public var quality: Int?
    public var encodes: Int?
    /// The SSIMULACRA 2 score written (`--quality auto`, see PreparedImage.score).
    public var score: Double?
    /// Encodes decoded and scored (see PreparedImage.scores).
    public var scores = 0
    /// `--to auto`: what each format came to (see PreparedImage.candidates).
    public var candidates: [FormatCandidate]?
    /// Encodes of a small mosaic of the picture that aimed a budget search (see PreparedImage.probes).
    public var probes = 0
    public var passedThrough = false
    /// Written from the output cache, without decoding.
    public var cached = false
    /// The same bytes and settings as this earlier input of the run: its output, copied.
    public var duplicateOf: String?
    /// A JPEG turned or re-tagged without re-encoding (see PreparedImage.lossless).
    public var lossless = false
    /// The HDR gain map written beside the picture (see PreparedImage.gainMap).
    public var gainMap: WrittenGainMap?
    /// A web image set: its variants and the source's facts, and the path each variant was written to.
    public var set: PreparedSet?
    public var variantPaths: [String] = []
    public var warnings: [String] = []
    public var milliseconds = 0

    public init(job: BatchJob, status: Status, reason: String? = nil) {
        self.job = job
        self.status = status
        self.reason = reason
    }

    /// A failure for `job` with the error's sentence and kind.
    public init(job: BatchJob, failure: ImagePrepError) {
        self.init(job: job, status: .failed, reason: failure.description)
        errorKind = failure.kind
        errorStage = failure.stage
    }
}

public struct BatchSummary: Sendable {
    public var converted = 0
    public var skipped = 0
    public var failed = 0
    public var interrupted = false
    public var encodes = 0
    /// The lowest score written (`--quality auto`), nil when none was scored.
    public var lowestScore: Double?

    public init() {}
}
