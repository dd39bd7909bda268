/// Where one file is in the pipeline, so a failure that gives no message (a crash, a timeout in a
/// worker process) can still say where it happened: "killed by SIGSEGV while decoding".
public enum PipelineStage: String, Sendable, Codable {
    case decoding, resizing, encoding
}
