import Foundation
import Testing
@testable import ImagePrep

/// The parts of URL inputs that need no server: which arguments are URLs, names made safe, data: and
/// file: decoding, Cache-Control, and cache entries that do not check.
@Suite struct URLParsingTests {
    private func remote(_ argument: String) -> RemoteInput? {
        if case .remote(let remote) = InputSource.classify(argument) { return remote }
        return nil
    }

    @Test func whatCountsAsAURL() {
        #expect(InputSource.classify("photo.jpg") == .path("photo.jpg"))
        #expect(InputSource.classify("a:b.jpg") == .path("a:b.jpg"))
        #expect(InputSource.classify("./data:x.jpg") == .path("./data:x.jpg"))
        #expect(InputSource.classify("file:///tmp/a%20b.jpg") == .path("/tmp/a b.jpg"))
        #expect(InputSource.classify("file://LocalHost/tmp/x.jpg?q#f") == .path("/tmp/x.jpg"))
        #expect(InputSource.classify("file:/tmp/x.jpg") == .path("/tmp/x.jpg"))
        #expect(InputSource.classify("file:///tmp/%FF.jpg") == .path(RawPath.decode([0x2F, 0x74, 0x6D, 0x70, 0x2F, 0xFF, 0x2E, 0x6A, 0x70, 0x67])))
        for refused in ["file:///tmp/%00.jpg", "file:///tmp/%zz.jpg", "file://host/x.jpg", "file:relative.jpg", "ftp://h/a.jpg",
                        "http://", "http://exa mple/a.jpg", "data:no-comma"] {
            guard case .refused = InputSource.classify(refused) else {
                Issue.record("\(refused) was not refused")
                continue
            }
        }
        #expect(remote("HTTPS://example.com/a.jpg")?.kind == .http)
    }

    @Test func credentialsAreNeverShown() {
        let url = remote("https://user:p%40ss@example.com:8443/x/photo.jpg")
        #expect(url?.hasCredentials == true)
        #expect(url?.shown == "https://example.com:8443/x/photo.jpg")
        #expect(url?.source == "https://user:p%40ss@example.com:8443/x/photo.jpg")
        guard case .refused(let shown, _) = InputSource.classify("gopher://user:secret@host/") else {
            Issue.record("gopher was not refused")
            return
        }
        #expect(!shown.contains("secret"))
    }

    @Test func outputNamesAreSafe() {
        #expect(remote("http://h/a/b/photo.jpg?x=1#y")?.outputName == "photo.jpg")
        #expect(remote("http://h/my%20photo.png")?.outputName == "my photo.png")
        #expect(remote("http://h/..%2F..%2Fetc%2Fpasswd")?.outputName == "_.._etc_passwd")
        #expect(remote("http://h/%2E%2E")?.outputName == "h")
        #expect(remote("http://h/.hidden.jpg")?.outputName == "hidden.jpg")
        #expect(remote("http://h/a%0Ab%1B.jpg")?.outputName == "ab.jpg")
        #expect(remote("http://example.com:8080/")?.outputName == "example.com")
        #expect(remote("http://h/" + String(repeating: "%C3%A9", count: 150))?.outputName.utf8.count == 200)
    }

    @Test func dataURIs() throws {
        func decoded(_ uri: String, max: Int = 1000) -> [UInt8]? { try? DataURI.decode(uri, maxBytes: max).get() }
        #expect(decoded("data:,hi%20there") == Array("hi there".utf8))
        #expect(decoded("data:image/png;base64,aGk=") == Array("hi".utf8))
        #expect(decoded("data:;base64,aGk") == Array("hi".utf8))  // padding optional
        #expect(decoded("data:;base64,aG k%3D\n") == Array("hi".utf8))
        #expect(decoded("data:;base64,aGk=aGk=") == nil)   // data after padding
        #expect(decoded("data:;base64,a") == nil)          // 6 bits are no byte
        #expect(decoded("data:;base64,aGk*") == nil)
        #expect(decoded("data:,abcdef", max: 5) == nil)
        #expect(decoded("data:;base64,aGVsbG8=", max: 5) == Array("hello".utf8))
        #expect(decoded("data:;base64,aGVsbG8h", max: 5) == nil)
        #expect(remote("data:,a")?.outputName == "data-" + SHA256.hex(SHA256.hash(Array("a".utf8))).prefix(16))
        #expect(DataURI.shown("data:;base64," + String(repeating: "A", count: 1000)).count == 49)
    }

    @Test func cacheControl() {
        #expect(CacheControl("max-age=60") == CacheControl(noStore: false, maxAge: 60))
        #expect(CacheControl("public, MAX-AGE = 60, no-store").noStore)
        #expect(CacheControl("no-cache, max-age=60").maxAge == 0)
        #expect(CacheControl("max-age=99999999999999999999").maxAge == CacheControl.maxMaxAge)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("max-age=1e3").maxAge == 0)
        #expect(CacheControl(nil) == CacheControl(noStore: false, maxAge: 0))
    }

    @Test func validatorsAreCheckedBeforeTheyAreStoredOrSent() {
        #expect(Validators.etag("W/\"abc\"") == "W/\"abc\"")
        #expect(Validators.etag("\"a\r\nX-Evil: 1\"") == nil)
        #expect(Validators.etag(String(repeating: "a", count: 201)) == nil)
        #expect(Validators.date("Tue, 01 Dec 2026 12:00:00 GMT") != nil)
        #expect(Validators.date("Tue\n01") == nil)
    }

    @Test func cacheEntriesAreCheckedWhenRead() {
        let entry = HTTPCacheEntry(url: "http://h/a.jpg", etag: "\"e\"", lastModified: nil, storedAt: 100, maxAge: 60, body: [1, 2, 3])
        let file = entry.encoded()
        #expect(HTTPCacheEntry.decode(file, url: "http://h/a.jpg") == entry)
        #expect(HTTPCacheEntry.decode(file, url: "http://h/b.jpg") == nil)
        for index in [0, 30, file.count - 35, file.count - 1] {
            var damaged = file
            damaged[index] ^= 1
            #expect(HTTPCacheEntry.decode(damaged, url: "http://h/a.jpg") == nil, "a flipped byte at \(index)")
        }
        #expect(HTTPCacheEntry.decode(Array(file.dropLast()), url: "http://h/a.jpg") == nil)
        #expect(entry.isFresh(now: 159) && !entry.isFresh(now: 160) && !entry.isFresh(now: 99))
    }
}
