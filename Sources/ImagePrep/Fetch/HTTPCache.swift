import Foundation
import Synchronization

/// HTTP responses kept with their validators, filed as `DIR/ab/cdef…` by the SHA-256 of the URL, in the
/// output cache's way (see `OutputCache`): written to a temporary file and renamed into place, read
/// through an open descriptor, every entry checked when read and a damaged one removed, least recently
/// used out first past the size limit (`CacheTrimming`). Safe to share between runs at the same time.
/// URLs with credentials are never stored.
final class HTTPCache: Sendable {
    let directory: String
    let maxSize: Int
    private let runStart: FileTimestamp
    private let state = Mutex(State())

    private struct State {
        var addedSinceTrim = 0
        var trimmed = false
    }

    init(directory: String, maxSize: Int) throws {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.maxSize = max(0, maxSize)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        now.tv_sec -= 2  // the kernel's file times lag this clock (as OutputCache says)
        runStart = FileTimestamp(now)
        try Self.checkUsable(self.directory)
    }

    /// A directory that exists must take a file; one that does not is created at the first store (so a
    /// run without URLs leaves no `http/` in its --cache), and the nearest folder that exists must be
    /// writable. Either way a cache that cannot work is an error before the batch starts.
    private static func checkUsable(_ directory: String) throws {
        if RawPath.status(directory) != nil { return try OutputCache.checkWritable(directory) }
        var ancestor = directory
        while RawPath.status(ancestor) == nil {
            let parent = RawPath.split(ancestor).directory
            ancestor = parent.isEmpty ? "." : parent
        }
        guard RawPath.isDirectory(ancestor), RawPath.withCString(ancestor, { access($0, W_OK) }) == 0 else {
            throw ImagePrepError(.io, "cannot create \(directory): \(ancestor) is not a writable directory")
        }
    }

    static func now() -> Int64 { Int64(time(nil)) }

    func lookup(_ url: String) -> HTTPCacheEntry? {
        let path = entryPath(for: url)
        guard case .success(let (fd, info)) = RegularFile.open(path, followLinks: false) else { return nil }
        defer { close(fd) }
        guard info.st_size > 0, info.st_size <= maxSize, let file = FileDescriptorIO.readExactly(fd, size: Int(info.st_size)),
              let entry = HTTPCacheEntry.decode(file, url: url) else {
            if info.st_size <= maxSize { _ = RawPath.withCString(path) { unlink($0) } }  // damaged
            return nil
        }
        futimens(fd, nil)  // just used: evicted last
        return entry
    }

    /// Files `entry`; a failure (a full disk) only means the next run downloads again.
    func store(_ entry: HTTPCacheEntry) {
        let file = entry.encoded()
        guard file.count <= maxSize, (try? AtomicWriter.write(file, to: entryPath(for: entry.url))) != nil else { return }
        let trim = state.withLock { state -> Bool in
            state.addedSinceTrim += file.count
            guard !state.trimmed || state.addedSinceTrim > maxSize / 10 else { return false }
            state.trimmed = true
            state.addedSinceTrim = 0
            return true
        }
        if trim { _ = CacheTrimming.trim(directory: directory, maxSize: maxSize, runStart: runStart, hitThisRun: []) }
    }

    func entryPath(for url: String) -> String {
        let hex = SHA256.hex(SHA256.hash(Array("imgprep-http-cache-1\n\(url)".utf8)))
        return "\(directory)/\(hex.prefix(2))/\(hex.dropFirst(2))"
    }
}
