import Foundation
import Synchronization

/// The batch stage between the job source and the file converter for inputs that are not paths: it
/// brings an http(s) URL (through libcurl and the HTTP cache) or a data: URI into a private temporary
/// file, hands the job on with `readFrom` naming it, and removes the file once the job is done. It runs
/// in the batch parent inside the pool's slots, so at most `-j` downloads run at a time while the list
/// streams; workers still only see bytes. The same source wanted by two jobs at once is one download.
public final class FetchStage: Sendable {
    let options: FetchOptions
    let cache: HTTPCache?
    private let inFlight = Mutex<[String: Shared]>([:])

    private struct Shared {
        var download: Task<LocalCopy, any Error>
        var users: Int
    }

    /// Opens the HTTP cache (creating its directory): a cache that cannot be written is an error here,
    /// before any work.
    public init(options: FetchOptions, cacheMaxSize: Int = OutputCache.defaultMaxSize) throws {
        self.options = options
        cache = try options.httpCacheDirectory.map { try HTTPCache(directory: $0, maxSize: cacheMaxSize) }
    }

    /// Stops every download in progress (a signal ends the batch).
    public static func cancelAll() { CurlTransfer.cancelAll() }

    /// Runs `work` on `job`, fetched first when its input is a URL or a data: URI. A fetch that fails is
    /// the job's outcome, at the `fetch` stage.
    public func run(_ job: BatchJob, batch: BatchOptions, work: (BatchJob) async -> FileOutcome) async -> FileOutcome {
        guard let remote = job.remote, job.problem == nil else { return await work(job) }
        let start = DispatchTime.now()
        func failed(_ error: any Error) -> FileOutcome {
            var outcome = FileOutcome(job: job, failure: .failed(at: .fetch, error, otherwise: .io))
            outcome.milliseconds = Int((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
            return outcome
        }
        do { try refuse(remote) } catch { return failed(error) }
        if batch.dryRun {
            return FileOutcome(job: job, status: .ok, reason: "dry run: would fetch it and write \(job.output)")
        }
        // An output that is kept anyway is decided before any request.
        if FileConverter.skipReason(job, options: batch) != nil { return await work(job) }
        let shared = acquire(remote)
        defer { release(remote) }
        let copy: LocalCopy
        do { copy = try await shared.value } catch { return failed(error) }
        var local = job
        local.readFrom = copy.path
        var outcome = await work(local)
        outcome.job.readFrom = nil
        outcome.milliseconds = Int((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)  // the download included
        return outcome
    }

    /// The bytes of `remote`, for `info` (no temporary file is left behind).
    public func bytes(of remote: RemoteInput) async throws -> [UInt8] {
        do {
            try refuse(remote)
            let copy = try await fetch(remote)
            defer { copy.remove() }
            return try InputFile.read(copy.path, maxBytes: options.maxBytes)
        } catch {
            throw ImagePrepError.failed(at: .fetch, error, otherwise: .io)
        }
    }

    /// What is refused before any request: the network when it is off, credentials unless allowed.
    private func refuse(_ remote: RemoteInput) throws {
        guard remote.kind == .http else { return }
        if options.noNetwork {
            throw ImagePrepError(.io, "not downloaded: --no-network refuses http(s) inputs")
        }
        if remote.hasCredentials && !options.allowCredentials {
            throw ImagePrepError(.io, "the URL carries credentials (user:password@); refused without --allow-credentials")
        }
    }

    private func acquire(_ remote: RemoteInput) -> Task<LocalCopy, any Error> {
        inFlight.withLock { map in
            if var shared = map[remote.source] {
                shared.users += 1
                map[remote.source] = shared
                return shared.download
            }
            let download = Task { try await self.fetch(remote) }
            map[remote.source] = Shared(download: download, users: 1)
            return download
        }
    }

    /// The last job that wanted the download removes its file.
    private func release(_ remote: RemoteInput) {
        let finished = inFlight.withLock { map -> Task<LocalCopy, any Error>? in
            guard var shared = map[remote.source] else { return nil }
            shared.users -= 1
            if shared.users > 0 {
                map[remote.source] = shared
                return nil
            }
            map[remote.source] = nil
            return shared.download
        }
        guard let finished else { return }
        Task { try? await finished.value.remove() }
    }

    private func fetch(_ remote: RemoteInput) async throws -> LocalCopy {
        let options = options, cache = remote.hasCredentials ? nil : cache
        // libcurl blocks its thread for the whole transfer: never one of the few the batch's tasks share.
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    switch remote.kind {
                    case .data: try LocalCopy.write(try DataURI.decode(remote.source, maxBytes: options.maxBytes).get())
                    case .http: try HTTPDownload(url: remote.source, options: options, cache: cache).run()
                    }
                })
            }
        }
    }
}

/// A fetched input in a private temporary file (mode 0600, in $TMPDIR), removed by `remove` or, when a
/// signal ends the process first, by `TemporaryFiles.removeAll`.
struct LocalCopy: Sendable {
    let path: String

    /// A new empty file and its open descriptor.
    static func create() throws -> (fd: Int32, copy: LocalCopy) {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        guard let (fd, path) = TemporaryFiles.create(template: "\(directory)/.download.imgprep-XXXXXX") else {
            throw ImagePrepError(.io, "cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        return (fd, LocalCopy(path: path))
    }

    static func write(_ bytes: [UInt8]) throws -> LocalCopy {
        let (fd, copy) = try create()
        defer { close(fd) }
        guard FileDescriptorIO.writeAll(fd, bytes) else {
            let error = ImagePrepError(.io, "cannot write a temporary file: \(String(cString: strerror(errno)))")
            copy.remove()
            throw error
        }
        return copy
    }

    func remove() {
        _ = RawPath.withCString(path) { unlink($0) }
        TemporaryFiles.forget(path)
    }
}
