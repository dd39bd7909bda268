import Foundation

/// What a trim found and did.
public struct CacheTrimReport: Sendable, Equatable {
    /// Total bytes of entries before and after.
    public var sizeBefore = 0
    public var sizeAfter = 0
    public var evicted = 0
    public var evictedBytes = 0
    /// Evicted entries that this run had used or stored: the limit is smaller than one run's outputs.
    /// Worth a warning suggesting a larger `--cache-max-size`.
    public var evictedFromThisRun = 0
    /// Temporary files left by writers that died (older than an hour), removed.
    public var abandonedTemporaryFiles = 0
    /// Notes in `executables/` (see BuildIdentity) of builds not used lately, removed.
    public var executableNotesRemoved = 0
}

/// Keeps a cache directory within its size: when the entries add up to more than the limit, the least
/// recently used go first (entry mtimes are set on every hit and store), down to 90% of the limit so
/// that the next trim is a while away.
///
/// Entries this run has already used are evicted last: first those it stored (or another process
/// used), newest first, then those it found, newest first. Plain LRU on a limit smaller than one
/// run's outputs evicts every entry just before the next run needs it (each run reads in the same
/// order), so nothing would ever hit; this way the cache keeps a fixed part of the run and hits on
/// that part on every later run, and `evictedFromThisRun` says the limit is too small.
enum CacheTrimming {
    static let lowWaterFraction = 0.9
    /// A temporary file this old belongs to a writer that is gone (a write takes milliseconds).
    static let abandonedAfterSeconds = 3600

    struct EntryFile {
        var path: String
        var size: Int
        var modified: FileTimestamp
        /// `CacheKey.shortID`, from the name.
        var shortID: UInt64
    }

    static func trim(directory: String, maxSize: Int, runStart: FileTimestamp, hitThisRun: Set<UInt64>) -> CacheTrimReport {
        var report = CacheTrimReport()
        report.executableNotesRemoved = trimExecutableNotes(directory, runStart: runStart,
                                                            abandonedTemporaryFiles: &report.abandonedTemporaryFiles)
        let entries = scan(directory, abandonedTemporaryFiles: &report.abandonedTemporaryFiles)
        report.sizeBefore = entries.reduce(0) { $0 + $1.size }
        report.sizeAfter = report.sizeBefore
        guard report.sizeBefore > maxSize else { return report }

        let target = Int(Double(maxSize) * lowWaterFraction)
        // Ties (coarse file times) are broken by name, so every process picks the same entries.
        let earlier = entries.filter { $0.modified < runStart }.sorted { ($0.modified, $0.path) < ($1.modified, $1.path) }
        let thisRun = entries.filter { !($0.modified < runStart) }.sorted { ($1.modified, $1.path) < ($0.modified, $0.path) }
        let stored = thisRun.filter { !hitThisRun.contains($0.shortID) }, found = thisRun.filter { hitThisRun.contains($0.shortID) }
        for (entry, usedThisRun) in earlier.map({ ($0, false) }) + (stored + found).map({ ($0, true) }) {
            guard report.sizeAfter > target else { break }
            // Already gone means another process evicted it: it no longer counts either way.
            _ = RawPath.withCString(entry.path) { unlink($0) }
            report.sizeAfter -= entry.size
            report.evicted += 1
            report.evictedBytes += entry.size
            if usedThisRun { report.evictedFromThisRun += 1 }
        }
        return report
    }

    /// Every entry file (`ab/` + 62 hex digits) with its size and mtime. Other files are left alone,
    /// except temporary files abandoned by writers that died, which are removed.
    static func scan(_ directory: String, abandonedTemporaryFiles: inout Int) -> [EntryFile] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var entries: [EntryFile] = []
        for fanOut in RawPath.names(in: directory) ?? [] where fanOut.count == 2 && isHex(fanOut) {
            let subdirectory = "\(directory)/\(fanOut)"
            for name in RawPath.names(in: subdirectory) ?? [] {
                let path = "\(subdirectory)/\(name)"
                var info = stat()
                guard RawPath.withCString(path, { lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                if name.count == 62 && isHex(name), let shortID = UInt64(fanOut + name.prefix(14), radix: 16) {
                    entries.append(EntryFile(path: path, size: Int(info.st_size), modified: FileTimestamp(info.st_mtim),
                                             shortID: shortID))
                } else if name.hasPrefix("."), name.contains(".imgprep-"), now.tv_sec - info.st_mtim.tv_sec > abandonedAfterSeconds {
                    if RawPath.withCString(path, { unlink($0) }) == 0 { abandonedTemporaryFiles += 1 }
                }
            }
        }
        return entries
    }

    /// Build notes kept besides those of the builds used in this run: each new build (every `make`) leaves
    /// one, and a cache outlives many builds. A note only saves hashing an executable once.
    static let executableNotesKept = 8

    /// Removes the notes in `executables/` but those used since `runStart` (this build's, which
    /// BuildIdentity touches on every use) and the `executableNotesKept` most recently used others.
    static func trimExecutableNotes(_ directory: String, runStart: FileTimestamp, abandonedTemporaryFiles: inout Int) -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let folder = "\(directory)/\(BuildIdentity.folder)"
        var notes: [(path: String, modified: FileTimestamp)] = []
        for name in RawPath.names(in: folder) ?? [] {
            let path = "\(folder)/\(name)"
            var info = stat()
            guard RawPath.withCString(path, { lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if !name.hasPrefix(".") {
                notes.append((path, FileTimestamp(info.st_mtim)))
            } else if name.contains(".imgprep-"), now.tv_sec - info.st_mtim.tv_sec > abandonedAfterSeconds {
                if RawPath.withCString(path, { unlink($0) }) == 0 { abandonedTemporaryFiles += 1 }
            }
        }
        // Newest first, ties broken by name so every process keeps the same ones.
        let older = notes.filter { $0.modified < runStart }.sorted { ($1.modified, $1.path) < ($0.modified, $0.path) }
        var removed = 0
        for note in older.dropFirst(executableNotesKept) where RawPath.withCString(note.path, { unlink($0) }) == 0 {
            removed += 1
        }
        return removed
    }

    static func isHex(_ name: String) -> Bool {
        name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension FileTimestamp {
    init(_ time: timespec) {
        seconds = time.tv_sec
        nanoseconds = time.tv_nsec
    }
}
