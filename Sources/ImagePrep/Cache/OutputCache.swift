import Foundation
import Synchronization

/// Outputs filed by content (`CacheKey`) in a directory that runs, shards and machines can share:
/// `DIR/ab/cdef…` (the key's 64 hex digits, the first two naming a subdirectory so no directory holds
/// more than a few thousand files). Nothing in it depends on paths, inode numbers or mtimes for
/// correctness, so CI can save and restore it anywhere; mtimes only order the evictions.
///
/// Safe between processes without locks:
/// - an entry is written to a temporary file beside it and renamed into place, so its name only ever
///   shows a complete entry; two writers of one key both rename, the last one wins, either is whole;
/// - a reader reads through its open descriptor, so a rename over the entry or its eviction meanwhile
///   leaves what it reads intact;
/// - every read is verified (lengths, key, checksum): a damaged entry is a miss and is removed.
/// No fsync: after a power cut a just-renamed entry may come back empty or short, which verification
/// turns into a miss. A cache only has to be right, not durable, and a flush per output is slow.
///
/// Anyone who can write the directory chooses the outputs it serves: share it as you would the outputs.
public final class OutputCache: Sendable {
    /// Names the cache directory when `--cache` is not given.
    public static let environmentVariable = "IMGPREP_CACHE"
    /// 1 GB: about one run of 2,000 to 3,000 web-sized photos (300-500 KB each), or 300 full-size camera
    /// JPEGs, and quick to save and restore in CI. Set it above the size of one run's outputs.
    public static let defaultMaxSize = 1_000_000_000

    public let directory: String
    /// Total bytes of entries the cache keeps after a trim.
    public let maxSize: Int
    /// Entries used at or after this time are this run's; a trim removes older ones first. Two seconds
    /// early because file times come from the kernel's coarse clock, which lags the one read here.
    let runStart: FileTimestamp

    private let state = Mutex(State())

    private struct State {
        /// Total size at the last trim (nil before the first); stores add to `addedSinceTrim`.
        var sizeAtTrim: Int?
        var addedSinceTrim = 0
        var trimming = false
        /// Entries this instance found (`CacheKey.shortID`): a trim evicts them last, whatever their
        /// mtimes say (file times come from a coarse clock, so a hit and the next store can tie).
        var hitThisRun = Set<UInt64>()
        var statistics = CacheStatistics()
        /// The first thing worth a warning (an entry that is not a file, a store that failed).
        var problem: String?
    }

    /// Opens (creating it if needed) the cache in `directory`.
    public init(directory: String, maxSize: Int = OutputCache.defaultMaxSize) throws {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.maxSize = max(0, maxSize)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        now.tv_sec -= 2
        runStart = FileTimestamp(now)
        try Self.checkWritable(self.directory)
        Self.tagAsCache(self.directory)
    }

    /// Creates the directory if needed and proves it can hold a file: a cache that cannot be written
    /// (a regular file by that name, a read-only folder or file system, a full disk) is an error before
    /// any work, not a run that silently caches nothing.
    static func checkWritable(_ directory: String) throws {
        if let info = RawPath.status(directory), info.st_mode & S_IFMT != S_IFDIR {
            throw ImagePrepError(.io, "\(directory) is \(RegularFile.describe(info.st_mode & S_IFMT)), not a directory")
        }
        try RawPath.createDirectories(directory)
        var template = (RawPath.bytes("\(directory)/.probe.imgprep-XXXXXX") + [0]).map { CChar(bitPattern: $0) }
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // never empty: the NUL
        guard fd >= 0 else { throw ImagePrepError(.io, "cannot write in \(directory): \(String(cString: strerror(errno)))") }
        let written = FileDescriptorIO.writeAll(fd, [0x0A])
        let code = errno
        close(fd)
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        guard written else { throw ImagePrepError(.io, "cannot write in \(directory): \(String(cString: strerror(code)))") }
    }

    /// The cache directory from `--cache DIR` or else `IMGPREP_CACHE`, or nil for no cache.
    public static func directory(option: String?, environment: [String: String]) -> String? {
        if let option, !option.isEmpty { return option }
        if let variable = environment[environmentVariable], !variable.isEmpty { return variable }
        return nil
    }

    /// The output stored under `key`, verified, or nil. A hit marks the entry as just used; a damaged
    /// entry is removed.
    public func lookup(_ key: CacheKey) -> CacheEntry? {
        let path = entryPath(for: key)
        let fd: Int32, info: stat
        switch RegularFile.open(path, followLinks: false) {
        case .success(let opened): (fd, info) = opened
        case .failure(.failed):
            return miss()
        case .failure(.notRegular(let what, let type)):
            // A FIFO, device or link where an entry should be: never read (a FIFO would block for
            // ever), removed so a good entry can take its place, and said once.
            if type != S_IFDIR { _ = RawPath.withCString(path) { unlink($0) } }
            state.withLock { state in
                state.statistics.damaged += 1
                if state.problem == nil { state.problem = "the cache entry \(path) is \(what), not a regular file; ignored" }
            }
            return miss()
        }
        defer { close(fd) }
        // Larger than this cache keeps: stored under a larger limit, not damaged; trimming decides.
        guard info.st_size <= maxSize, let file = FileDescriptorIO.readExactly(fd, size: Int(info.st_size)) else { return miss() }
        switch CacheEntryCodec.decode(file, key: key) {
        case .failure:
            Self.removeIfStill(path, device: info.st_dev, inode: info.st_ino)
            state.withLock { $0.statistics.damaged += 1 }
            return miss()
        case .success(let entry):
            futimens(fd, nil)  // now: least recently used goes first. Fails harmlessly on a read-only cache.
            state.withLock { state in
                state.statistics.hits += 1
                state.hitThisRun.insert(key.shortID)
            }
            return entry
        }
    }

    /// Files `bytes` (an output as written) and what to report about it under `key`. An output larger
    /// than the whole cache is not kept. Trims the cache when this store takes it over `maxSize`,
    /// and on the first store of a run.
    public func store(_ key: CacheKey, bytes: [UInt8], output: CachedOutput) throws {
        let file = try CacheEntryCodec.encode(key: key, output: output, bytes: bytes)
        guard file.count <= maxSize else { return }
        do {
            try AtomicWriter.write(file, to: entryPath(for: key))
        } catch {
            // The disk filled up or the folder changed under the run: the output is still written,
            // only not cached; the run says so once at the end.
            state.withLock { state in
                state.statistics.storeFailures += 1
                if state.problem == nil { state.problem = "cannot store outputs in the cache at \(directory): \(error)" }
            }
            throw error
        }
        let shouldTrim = state.withLock { state -> Bool in
            state.statistics.stored += 1
            state.addedSinceTrim += file.count
            guard !state.trimming else { return false }
            if let size = state.sizeAtTrim, size + state.addedSinceTrim <= maxSize { return false }
            state.trimming = true
            return true
        }
        if shouldTrim { trim() }
    }

    /// What this instance did so far.
    public var statistics: CacheStatistics { state.withLock { $0.statistics } }

    /// The first problem met (an entry that is not a regular file, an output that could not be stored),
    /// for one warning at the end of the run.
    public var problem: String? { state.withLock { $0.problem } }

    /// Where the entry for `key` lives.
    func entryPath(for key: CacheKey) -> String {
        let hex = key.hex
        return "\(directory)/\(hex.prefix(2))/\(hex.dropFirst(2))"
    }

    /// Scans the directory and, when its entries add up to more than `maxSize`, evicts down to 90% of
    /// it (see `CacheTrimming` for the order).
    @discardableResult
    public func trim() -> CacheTrimReport {
        let hits = state.withLock { state in
            state.trimming = true
            return state.hitThisRun
        }
        let report = CacheTrimming.trim(directory: directory, maxSize: maxSize, runStart: runStart, hitThisRun: hits)
        state.withLock { state in
            state.sizeAtTrim = report.sizeAfter
            state.addedSinceTrim = 0
            state.trimming = false
            state.statistics.trims += 1
            state.statistics.evicted += report.evicted
            state.statistics.evictedBytes += report.evictedBytes
            state.statistics.evictedFromThisRun += report.evictedFromThisRun
        }
        return report
    }

    private func miss() -> CacheEntry? {
        state.withLock { $0.statistics.misses += 1 }
        return nil
    }

    /// Removes a damaged entry unless a writer has just renamed a good one over it (checked by inode:
    /// an optimisation only, a lost race costs one encode).
    private static func removeIfStill(_ path: String, device: dev_t, inode: ino_t) {
        guard let now = RawPath.status(path), now.st_dev == device, now.st_ino == inode else { return }
        _ = RawPath.withCString(path) { unlink($0) }
    }

    /// CACHEDIR.TAG (bford.info/cachedir): backup tools that honour it skip the cache.
    private static func tagAsCache(_ directory: String) {
        let tag = "\(directory)/CACHEDIR.TAG"
        guard RawPath.status(tag) == nil else { return }
        let text = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by imgprep.\n# For information about cache directory tags see https://bford.info/cachedir/\n"
        try? AtomicWriter.write(Array(text.utf8), to: tag)  // a convenience: the cache works without it
    }
}

/// Counts for the run's summary.
public struct CacheStatistics: Sendable, Equatable, Codable {
    public var hits = 0
    public var misses = 0
    /// Entries found damaged (truncated, wrong checksum or key, unreadable), counted as misses and removed.
    public var damaged = 0
    public var stored = 0
    /// Directory scans: the first store of a run, then only when stores take the cache over its limit.
    public var trims = 0
    public var evicted = 0
    public var evictedBytes = 0
    /// Evicted entries this run had used or stored: the limit is smaller than one run's outputs, and
    /// worth a warning that suggests a larger `--cache-max-size`.
    public var evictedFromThisRun = 0
    /// Outputs that could not be filed (a full disk, a folder made read-only or replaced mid-run).
    public var storeFailures = 0

    public init() {}
}
