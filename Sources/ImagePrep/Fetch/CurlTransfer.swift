import CFetch
import Foundation

/// One libcurl easy handle, freed with its owner. Used by one thread at a time (libcurl's rule).
final class CurlTransfer {
    private let handle: UnsafeMutableRawPointer

    /// What one GET came to.
    struct Response {
        var status: Int
        var bytes: Int
        var etag: String?
        var lastModified: String?
        var cacheControl: String?
        /// A captured header did not fit its field: nothing of this response is cached.
        var headersOverflowed: Bool
        /// A 3xx's target, absolute (not followed).
        var redirect: String?
    }

    init() throws {
        try Self.load()
        guard let handle = imgprep_curl_new() else { throw ImagePrepError(.io, "libcurl: cannot create a transfer (out of memory)") }
        self.handle = handle
    }

    deinit { imgprep_curl_free(handle) }

    static func load() throws {
        var message = [CChar](repeating: 0, count: 512)
        guard imgprep_curl_load(&message, message.count) == 0 else {
            throw ImagePrepError(.io, "cannot load libcurl (\(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))); install libcurl4")
        }
    }

    /// libcurl's version, loading it if needed ("not loaded" when it cannot be).
    static var version: String {
        guard (try? load()) != nil else { return "not loaded" }
        return String(cString: imgprep_curl_version())
    }

    /// Stops every transfer at its next progress check (the process is ending).
    static func cancelAll() { imgprep_curl_cancel_all() }

    /// GET `url`, writing a 200's body to `fd`. Throws what libcurl said, the size limit, or a write error.
    func get(_ url: String, options: FetchOptions, ifNoneMatch: String?, ifModifiedSince: String?, into fd: Int32) throws -> Response {
        var result = imgprep_fetch_result()
        func milliseconds(_ seconds: Double?) -> Int {
            guard let seconds, seconds.isFinite, seconds > 0 else { return 0 }
            return Int(min(seconds, 1e8) * 1000)
        }
        withOptionalCString(url) { url in
            withOptionalCString(FetchOptions.userAgent) { agent in
                withOptionalCString(options.caFile) { caFile in
                    withOptionalCString(ifNoneMatch) { etag in
                        withOptionalCString(ifModifiedSince) { date in
                            var request = imgprep_fetch_request(
                                url: url, user_agent: agent, ca_file: caFile, if_none_match: etag, if_modified_since: date,
                                timeout_ms: milliseconds(options.timeout), connect_timeout_ms: milliseconds(FetchOptions.connectTimeout),
                                max_bytes: Int64(max(0, options.maxBytes)), fd: fd)
                            imgprep_curl_get(handle, &request, &result)
                        }
                    }
                }
            }
        }
        switch Int(result.outcome) {
        case Int(IMGPREP_FETCH_DONE):
            break
        case Int(IMGPREP_FETCH_TOO_LARGE):
            throw ImagePrepError(.tooLarge, "the response is larger than the --max-input-size limit of \(ByteSize.format(options.maxBytes)); cut off")
        case Int(IMGPREP_FETCH_WRITE):
            throw ImagePrepError(.io, "cannot write the download: \(String(cString: strerror(result.saved_errno)))")
        case Int(IMGPREP_FETCH_CANCELLED):
            throw ImagePrepError(.interrupted, "interrupted")
        default:
            let message = Self.text(&result.message)
            if result.curl_code == 22 /* CURLE_HTTP_RETURNED_ERROR */, result.status >= 400 {
                throw ImagePrepError(.io, "HTTP \(result.status)\(Self.reason(Int(result.status)))")
            }
            if result.curl_code == 28 /* CURLE_OPERATION_TIMEDOUT */ {
                throw ImagePrepError(.timeout, "libcurl: \(message)")
            }
            throw ImagePrepError.library("libcurl", message, kind: .io)
        }
        if result.redirect_overflowed != 0 {
            throw ImagePrepError(.io, "HTTP \(result.status): redirected to a URL longer than \(MemoryLayout.size(ofValue: result.redirect_url) - 1) bytes; not followed")
        }
        return Response(status: Int(result.status), bytes: Int(result.bytes),
                        etag: Self.text(&result.etag).nonEmpty, lastModified: Self.text(&result.last_modified).nonEmpty,
                        cacheControl: Self.text(&result.cache_control).nonEmpty, headersOverflowed: result.headers_overflowed != 0,
                        redirect: Self.rawText(&result.redirect_url).nonEmpty)
    }

    private static func reason(_ status: Int) -> String {
        let reasons = [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 410: "Gone",
                       429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
                       503: "Service Unavailable", 504: "Gateway Timeout"]
        return reasons[status].map { " \($0)" } ?? ""
    }

    /// A fixed C char array's bytes up to the first NUL as RawPath keeps them (a URL to check, not to show).
    private static func rawText<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { raw in RawPath.decode(raw.prefix { $0 != 0 }) }
    }

    /// A fixed C char array as text: bytes up to the first NUL, invalid UTF-8 repaired (it came from a server).
    private static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
