import ImagePrep

/// The hidden command a batch starts its worker processes with (`imgprep __worker`): it reads files to
/// prepare from standard input and answers on standard output, for the parent only.
enum WorkerCommand {
    static let name = "__worker"

    static func run() -> Int32 { WorkerServer.serve() }
}
