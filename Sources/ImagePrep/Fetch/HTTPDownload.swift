import Foundation

/// One http(s) input brought into a temporary file: from the cache without a request while max-age
/// holds, else a GET (conditional when the cache has validators) whose `304` reuses the stored body.
/// The body streams to the file with `--max-input-size` enforced; a `200` with validators or a max-age
/// is stored unless `no-store` says not to.
struct HTTPDownload {
    let url: String
    let options: FetchOptions
    let cache: HTTPCache?

    func run() throws -> LocalCopy {
        // A stored body over this run's --max-input-size is as good as none.
        let stored = cache?.lookup(url).flatMap { $0.body.count <= options.maxBytes ? $0 : nil }
        if let stored, stored.isFresh(now: HTTPCache.now()) {
            return try LocalCopy.write(stored.body)
        }
        let (fd, copy) = try LocalCopy.create()
        var open = true
        defer { if open { close(fd) } }
        do {
            let response = try CurlTransfer().get(url, options: options, ifNoneMatch: stored?.etag,
                                                  ifModifiedSince: stored?.lastModified, into: fd)
            let control = CacheControl(response.cacheControl)
            switch response.status {
            case 200:
                close(fd)
                open = false
                if let cache, !control.noStore, !response.headersOverflowed {
                    let entry = HTTPCacheEntry(url: url, etag: response.etag.flatMap(Validators.etag),
                                               lastModified: response.lastModified.flatMap(Validators.date),
                                               storedAt: HTTPCache.now(), maxAge: control.maxAge,
                                               body: try InputFile.read(copy.path, maxBytes: options.maxBytes))
                    if entry.etag != nil || entry.lastModified != nil || entry.maxAge > 0 { cache.store(entry) }
                }
            case 304:
                guard let stored else {
                    throw ImagePrepError(.io, "HTTP 304 for a response this run did not ask to revalidate")
                }
                guard FileDescriptorIO.writeAll(fd, stored.body) else {
                    throw ImagePrepError(.io, "cannot write a temporary file: \(String(cString: strerror(errno)))")
                }
                if let cache, !control.noStore {
                    var refreshed = stored
                    refreshed.storedAt = HTTPCache.now()
                    if response.cacheControl != nil { refreshed.maxAge = control.maxAge }
                    cache.store(refreshed)
                }
            default:
                throw ImagePrepError(.io, "HTTP \(response.status): the server sent no image (imgprep expects 200)")
            }
            return copy
        } catch {
            copy.remove()
            throw error
        }
    }
}
