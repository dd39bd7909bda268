import Synchronization

/// Outputs a batch need not prepare again: entries of the output cache (`--cache`), and files whose bytes
/// and settings equal another input's in this run, which are prepared once. Both are found by the same
/// key (SHA-256 of the input's bytes, the settings that change outputs, and the versions).
public final class OutputReuse: Sendable {
    /// Where a file's output came from.
    public enum Source: Sendable, Equatable {
        case prepared
        case cache
        /// The same bytes and settings as this earlier input of the run.
        case duplicate(of: String)
    }

    public let cache: OutputCache?
    private let fingerprint: [UInt8]
    /// The settings without a graphic's own format: for inputs whose name in it was not free.
    private let photoFingerprint: [UInt8]
    private let batchFormat: OutputFormat
    private let versions: [String]
    private let state = Mutex(State())

    private struct State {
        /// Keys being prepared now: the first input and who waits for its result.
        var inFlight: [CacheKey: Waiters] = [:]
        /// Outputs written this run, most recent last (bounded), to copy for a later duplicate.
        var written: [CacheKey: Written] = [:]
        var order: [CacheKey] = []
    }

    private struct Waiters {
        var input: String
        var continuations: [CheckedContinuation<Result<PreparedImage, Error>, Never>] = []
    }

    private struct Written {
        var input: String
        /// Every file written for it (a set's variants in order).
        var outputs: [String]
        var digest: [UInt8]
        var summary: PreparedImage   // without its bytes
    }

    /// How many written outputs are remembered for later duplicates (a path and a digest each).
    private static let rememberedOutputs = 4096

    /// - Parameter settings: the batch's settings.
    public init(settings: ConversionSettings, cache: OutputCache?) {
        // Scheduling (threads) is not part of the settings: it changes the speed, never the bytes.
        self.fingerprint = (try? CacheKey.fingerprint(of: settings)) ?? []
        var photo = settings
        photo.graphicFormat = nil
        self.photoFingerprint = (try? CacheKey.fingerprint(of: photo)) ?? []
        self.batchFormat = settings.format
        // A cache outlives this build: its entries are filed under the libraries' versions and the
        // executable's own digest too. Within one run neither can change, so finding duplicates needs
        // neither, and asking for versions would open libheif in a batch that has no HEIF file.
        self.versions = cache.map { CodecVersions.all + ["build \(BuildIdentity.digest(rememberedIn: $0.directory))"] } ?? []
        self.cache = cache
    }

    /// - Parameter settings: what the input is prepared with: the batch's, or for one input the batch's
    ///   without the graphic route (its name in the graphic format was taken), or in place in its own format.
    public func key(for input: [UInt8], settings: ConversionSettings) -> CacheKey {
        let fingerprint = settings.format != batchFormat ? (try? CacheKey.fingerprint(of: settings)) ?? []
            : settings.graphicFormat != nil ? fingerprint : photoFingerprint
        return CacheKey(input: input, settingsFingerprint: fingerprint, versions: versions)
    }

    /// The output for `input` (bytes read from the file `path`): from the cache, from an identical input
    /// prepared (or being prepared) in this run, or by calling `prepare`, whose result is then cached.
    /// - Returns: the output and where it came from; `encodes` is 0 unless it was prepared here.
    public func output(for key: CacheKey, input path: String,
                       prepare: () async throws -> PreparedImage) async throws -> (PreparedImage, Source) {
        if let entry = cache?.lookup(key) { return (entry.output.preparedImage(bytes: entry.bytes), .cache) }
        enum Role { case first, waiter(of: String), copy(Written) }
        let role = state.withLock { state -> Role in
            if let written = state.written[key] { return .copy(written) }
            if let waiters = state.inFlight[key] { return .waiter(of: waiters.input) }
            state.inFlight[key] = Waiters(input: path)
            return .first
        }
        switch role {
        case .copy(let written):
            // The earlier output, if it is still what this run wrote; else prepare again.
            if let files = try? written.outputs.map({ try InputFile.read($0) }), case let bytes = files.flatMap({ $0 }),
               SHA256.hash(bytes) == written.digest {
                var reused = written.summary
                reused.bytes = bytes
                reused.encodes = 0
                return (reused, .duplicate(of: written.input))
            }
            return (try await prepare(), .prepared)
        case .waiter(let first):
            let result = await withCheckedContinuation { continuation in
                let late = state.withLock { state -> Bool in
                    guard state.inFlight[key] != nil else { return true }
                    state.inFlight[key]?.continuations.append(continuation)
                    return false
                }
                if late { continuation.resume(returning: .failure(CancellationError())) }
            }
            switch result {
            case .success(var image):
                image.encodes = 0
                return (image, .duplicate(of: first))
            case .failure(let error as ImagePrepError):
                throw ImagePrepError(error.kind, "\(error.description) (the same file as \(first))", stage: error.stage)
            case .failure:
                // The first finished between our two looks: take its written output or prepare.
                return try await output(for: key, input: path, prepare: prepare)
            }
        case .first:
            let result: Result<PreparedImage, Error>
            do { result = .success(try await prepare()) } catch { result = .failure(error) }
            let waiters = state.withLock { $0.inFlight.removeValue(forKey: key)?.continuations ?? [] }
            waiters.forEach { $0.resume(returning: result) }
            let image = try result.get()
            if let cache, !image.passedThrough {
                try? cache.store(key, bytes: image.bytes, output: CachedOutput(image))   // a cache is a bonus
            }
            return (image, .prepared)
        }
    }

    /// Remembers that `image` for `key` now lies in `outputs` (end to end), for duplicates later in the run.
    public func written(_ key: CacheKey, input: String, outputs: [String], image: PreparedImage) {
        var summary = image
        summary.bytes = []
        let written = Written(input: input, outputs: outputs, digest: SHA256.hash(image.bytes), summary: summary)
        state.withLock { state in
            guard state.written[key] == nil else { return }
            state.written[key] = written
            state.order.append(key)
            if state.order.count > Self.rememberedOutputs {
                state.written[state.order.removeFirst()] = nil
            }
        }
    }
}
