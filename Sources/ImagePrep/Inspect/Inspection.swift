import Foundation

/// `imgprep info`'s work as one object: each input (a path or a URL) read, fetched or refused as a
/// batch would, and described in a worker process when isolated, so a file that crashes or hangs a
/// decoder costs its own answer only. `cancel()` stops it from any thread.
public final class Inspection: Sendable {
    private let pool: WorkerPool?
    private let fetcher: FetchStage
    private let cancellation = CancellationFlag()

    /// - Parameters:
    ///   - isolation: where files are read (as for a batch).
    ///   - fetch: how URL inputs are fetched (no HTTP cache directory: that is what could fail).
    public init(isolation: BatchRequest.Isolation, fetch: FetchOptions, timeout: Double? = 600,
                memoryLimit: Int = MemoryBudget.defaultLimit() ?? Int.max) throws(BatchRequestError) {
        switch isolation {
        case .inProcess: pool = nil
        case .workers(let executable, let arguments):
            pool = WorkerPool(.init(executable: executable, arguments: arguments, timeout: timeout, memoryBudget: memoryLimit))
        }
        do {
            fetcher = try FetchStage(options: fetch)
        } catch {
            throw BatchRequestError(description: "cannot use the HTTP cache directory: \(error)")
        }
    }

    deinit { pool?.stop() }

    /// The input as error lines name it (a URL without its credentials), and what it is, or the error
    /// with the stage it failed at.
    public func describe(_ argument: String) async -> (input: String, result: Result<ImageDescription, ImagePrepError>) {
        var shown = argument
        do {
            let bytes: [UInt8]
            switch InputSource.classify(argument) {
            case .path(let local):
                bytes = try InputFile.read(local)
            case .remote(let remote):
                shown = remote.shown
                bytes = try await fetcher.bytes(of: remote)
            case .refused(let refused, let reason):
                shown = refused
                throw ImagePrepError(.io, reason, stage: .fetch)
            }
            return (shown, await describe(bytes: bytes))
        } catch {
            // Reading the file throws at `read`.
            return (shown, .failure(ImagePrepError.failed(at: .sniff, error, otherwise: .io)))
        }
    }

    /// What `bytes` (a whole file, standard input's for example) is.
    public func describe(bytes: [UInt8]) async -> Result<ImageDescription, ImagePrepError> {
        do {
            if let pool { return .success(try await pool.inspect(bytes)) }
            return .success(try ImageInspector.inspect(bytes))
        } catch {
            // The worker names the stage of what it throws.
            return .failure(ImagePrepError.failed(at: .sniff, error, otherwise: .io))
        }
    }

    /// Stops it: the file in flight is abandoned (its worker killed, its download dropped).
    public func cancel() {
        cancellation.cancel()
        FetchStage.cancelAll()
        pool?.stop()
    }

    public var isCancelled: Bool { cancellation.isCancelled }
}
