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
            let (response, redirectedWithCredentials) = try get(ifNoneMatch: stored?.etag, ifModifiedSince: stored?.lastModified, into: fd)
            // A body that needed credentials on the way is not kept for a run without them.
            let cache = redirectedWithCredentials ? nil : cache
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

    /// As many redirects as browsers and curl follow by default, at most.
    static let maxRedirects = 5

    /// A GET that follows redirects itself, one hop at a time, each target checked as the first URL is
    /// (libcurl would send the `user:password@` of a redirect's URL). Whether a hop carried credentials.
    private func get(ifNoneMatch: String?, ifModifiedSince: String?, into fd: Int32) throws -> (CurlTransfer.Response, Bool) {
        let transfer = try CurlTransfer()
        var target = url, credentials = false, hops = 0
        while true {
            let response = try transfer.get(target, options: options, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, into: fd)
            guard (300..<400).contains(response.status), response.status != 304, let next = response.redirect else {
                return (response, credentials)
            }
            guard hops < Self.maxRedirects else {
                throw ImagePrepError(.io, "more than \(Self.maxRedirects) redirects; not followed")
            }
            hops += 1
            target = try Self.checkedRedirect(next, options: options)
            credentials = credentials || HTTPURL.parse(target)?.hasCredentials == true
        }
    }

    /// A redirect's target when imgprep may follow it: http or https, credentials only with --allow-credentials.
    static func checkedRedirect(_ location: String, options: FetchOptions) throws -> String {
        let shown = RawPath.lossy(HTTPURL.withoutCredentials(String(location.prefix(500))))
        guard case .remote(let remote) = InputSource.classify(location), remote.kind == .http else {
            throw ImagePrepError(.io, "redirected to \(shown): imgprep follows redirects to http and https URLs only")
        }
        if remote.hasCredentials && !options.allowCredentials {
            throw ImagePrepError(.io, "redirected to a URL that carries credentials (user:password@), \(shown); refused without --allow-credentials")
        }
        return location
    }
}
