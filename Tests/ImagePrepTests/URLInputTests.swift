import Foundation
import Testing
@testable import ImagePrep

/// http(s), file: and data: inputs against a server on 127.0.0.1 this test starts
/// (scripts/http-test-server.py): the HTTP cache's revalidation, redirects, failures per URL, the
/// timeout and size limit while streaming, TLS, --no-network, credentials, de-duplication.
@Suite struct URLInputTests {
    /// A scratch directory with `root/a.png` and `root/b.jpg` served by a fresh server.
    final class Site {
        let directory: URL
        let server: TestHTTPServer
        init(tls: (certificate: String, key: String)? = nil, directory existing: URL? = nil) throws {
            directory = try existing ?? TestSupport.temporaryDirectory()
            let root = directory.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
            for (fixture, name) in [("ssimulacra2/alpha.png", "a.png"), ("jxl/exif.jpg", "b.jpg")]
            where !FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path) {
                try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent(fixture), to: root.appendingPathComponent(name))
            }
            server = try TestHTTPServer(root: root, log: directory.appendingPathComponent("requests-\(UUID().uuidString).log"), tls: tls)
        }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func run(_ arguments: [String]) throws -> TestSupport.Run {
            // Downloads go to TMPDIR: a test can see that none is left behind.
            try TestSupport.imgprep(arguments, cwd: directory, environment: TestSupport.environment(adding: ["TMPDIR": path("tmp")]))
        }
        deinit {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func etagRevalidationGets304AndWritesTheSameBytes() throws {
        let site = try Site()
        let url = site.server.url("/etag/a.png")
        let first = try site.run(["convert", url, "-o", "out1", "--http-cache", "hc", "--cache", "oc"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try site.run(["convert", url, "-o", "out2", "--http-cache", "hc", "--cache", "oc", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(site.server.requests == ["GET /etag/a.png 200", "GET /etag/a.png 304"])
        #expect(try TestSupport.bytes(site.path("out1/a.jpg")) == TestSupport.bytes(site.path("out2/a.jpg")))
        // The body reused after the 304 is the same input, so the output cache hits too.
        let line = try BatchTests.jsonLines(second.stdout).first
        #expect(line?["cached"] as? Bool == true, "\(second.stdout)")
        #expect(line?["input"] as? String == url)
    }

    @Test func lastModifiedRevalidation() throws {
        let site = try Site()
        let url = site.server.url("/lastmod/b.jpg")
        for output in ["out1", "out2"] {
            let run = try site.run(["convert", url, "--to", "png", "-o", output, "--http-cache", "hc"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(site.server.requests == ["GET /lastmod/b.jpg 200", "GET /lastmod/b.jpg 304"])
        #expect(try TestSupport.bytes(site.path("out1/b.png")) == TestSupport.bytes(site.path("out2/b.png")))
    }

    @Test func maxAgeIsUsedWithoutARequestAndNoStoreIsNotStored() throws {
        let site = try Site()
        for output in ["out1", "out2"] {
            let run = try site.run(["convert", site.server.url("/maxage/a.png"), site.server.url("/nostore/b.jpg"),
                                    "--to", "png", "-o", output, "--http-cache", "hc"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(site.server.count("/maxage/a.png") == 1)
        // no-store: fetched again in full, never revalidated (no 304).
        #expect(site.server.requests.filter { $0.hasPrefix("GET /nostore/") } == ["GET /nostore/b.jpg 200", "GET /nostore/b.jpg 200"])
        #expect(try TestSupport.bytes(site.path("out1/a.png")) == TestSupport.bytes(site.path("out2/a.png")))
    }

    /// --http-cache defaults to http/ inside --cache; a damaged entry is a miss, never a wrong input.
    @Test func theCacheLivesInsideCacheAndADamagedEntryIsAMiss() throws {
        let site = try Site()
        let url = site.server.url("/maxage/a.png")
        #expect(try site.run(["convert", url, "-o", "out1", "--cache", "oc"]).status == 0)
        let http = site.directory.appendingPathComponent("oc/http")
        let entries = try FileManager.default.subpathsOfDirectory(atPath: http.path).filter { $0.count == 65 }
        #expect(entries.count == 1, "\(entries)")
        let entry = http.appendingPathComponent(entries[0])
        var bytes = try TestSupport.bytes(entry.path)
        bytes[bytes.count - 40] ^= 0xFF  // in the body
        try Data(bytes).write(to: entry)
        let run = try site.run(["convert", url, "-o", "out2", "--cache", "oc"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(site.server.count("/maxage/a.png") == 2)
        #expect(try TestSupport.bytes(site.path("out1/a.jpg")) == TestSupport.bytes(site.path("out2/a.jpg")))
    }

    @Test func theHTTPCacheStaysWithinCacheMaxSize() throws {
        let site = try Site()
        let run = try site.run(["convert", site.server.url("/maxage/a.png"), site.server.url("/maxage/b.jpg"), "--to", "png",
                                "-o", "out", "--http-cache", "hc", "--cache-max-size", "20KB"])
        #expect(run.status == 0, "\(run.stderr)")
        let hc = site.directory.appendingPathComponent("hc")
        let sizes = try FileManager.default.subpathsOfDirectory(atPath: hc.path).filter { $0.count == 65 }.map { entry in
            try FileManager.default.attributesOfItem(atPath: hc.appendingPathComponent(entry).path)[.size] as? Int ?? 0
        }
        #expect(!sizes.isEmpty && sizes.reduce(0, +) <= 20_000, "\(sizes)")
    }

    /// Two runs at once on one --http-cache, then a third: every entry it finds is whole (304s only) and
    /// the outputs are the same bytes.
    @Test func runsAtOnceShareTheHTTPCache() throws {
        let site = try Site()
        let urls = [site.server.url("/etag/a.png"), site.server.url("/etag/b.jpg")]
        nonisolated(unsafe) var statuses: [Int32] = [0, 0]  // each written by one queue, read after wait()
        let group = DispatchGroup()
        let directory = site.directory, environment = TestSupport.environment(adding: ["TMPDIR": site.path("tmp")])
        for index in 0..<2 {
            DispatchQueue.global().async(group: group) {
                let arguments = ["convert"] + urls + ["--to", "png", "-o", "out\(index)", "--http-cache", "hc"]
                statuses[index] = (try? TestSupport.imgprep(arguments, cwd: directory, environment: environment))?.status ?? -1
            }
        }
        group.wait()
        #expect(statuses == [0, 0])
        let before = site.server.requests.count
        let third = try site.run(["convert"] + urls + ["--to", "png", "-o", "out2", "--http-cache", "hc"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(Array(site.server.requests.dropFirst(before)).sorted() == ["GET /etag/a.png 304", "GET /etag/b.jpg 304"])
        for name in ["a.png", "b.png"] {
            #expect(try TestSupport.bytes(site.path("out0/" + name)) == TestSupport.bytes(site.path("out2/" + name)))
            #expect(try TestSupport.bytes(site.path("out1/" + name)) == TestSupport.bytes(site.path("out2/" + name)))
        }
    }

    /// /redirect/4 is five redirects, /redirect/5 six.
    @Test func redirectsAreFollowedUpToFiveAndNeverToFile() throws {
        let site = try Site()
        let run = try site.run(["convert", site.server.url("/redirect/4/a.png"), site.server.url("/redirect/5/b.jpg"),
                                site.server.url("/tofile"), "-o", "out", "--json"])
        #expect(run.status == 1)
        let lines = try BatchTests.jsonLines(run.stdout).filter { $0["input"] != nil }
        let status = Dictionary(lines.map { ($0["input"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(status[site.server.url("/redirect/4/a.png")]?["status"] as? String == "ok")
        for failing in ["/redirect/5/b.jpg", "/tofile"] {
            #expect(status[site.server.url(failing)]?["error_stage"] as? String == "fetch", "\(run.stdout)")
        }
        #expect((status[site.server.url("/tofile")]?["error"] as? String)?.contains("file") == true)
        #expect(FileManager.default.fileExists(atPath: site.path("out/a.jpg")))
        #expect(!FileManager.default.fileExists(atPath: site.path("out/tofile.jpg")))
    }

    @Test func http404And500AreOneLineEachAndTheBatchGoesOn() throws {
        let site = try Site()
        let run = try site.run(["convert", site.server.url("/status/404"), site.server.url("/status/500"),
                                site.server.url("/plain/a.png"), "-o", "out"])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.contains { $0 == "imgprep: \(site.server.url("/status/404")): fetch: HTTP 404 Not Found" }, "\(run.stderr)")
        #expect(lines.contains { $0 == "imgprep: \(site.server.url("/status/500")): fetch: HTTP 500 Internal Server Error" }, "\(run.stderr)")
        #expect(lines.count == 3, "two failures and the summary: \(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: site.path("out/a.jpg")))
    }

    /// The server sends headers and never the body: only --timeout ends the download.
    @Test func aStalledServerHitsTheTimeout() throws {
        let site = try Site()
        let run = try site.run(["convert", site.server.url("/slow"), "-o", "out", "--timeout", "1", "--json"])
        #expect(run.status == 1)
        let line = try BatchTests.jsonLines(run.stdout).first
        #expect(line?["error_kind"] as? String == "timeout", "\(run.stdout)")
        #expect(line?["error_stage"] as? String == "fetch")
    }

    /// SIGTERM while a download hangs: the run ends 143 and its temporary download is gone.
    @Test func aSignalDuringADownloadRemovesItsTemporaryFile() throws {
        let site = try Site()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = ["convert", site.server.url("/slow"), "-o", site.path("out")]
        process.environment = TestSupport.environment(adding: ["TMPDIR": site.path("tmp")])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let started = TestSupport.waitUntil {
            site.server.count("/slow") == 1 && ((try? FileManager.default.contentsOfDirectory(atPath: site.path("tmp")))?.count ?? 0) == 1
        }
        #expect(started, "the download never started")
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        #expect(try FileManager.default.contentsOfDirectory(atPath: site.path("tmp")).isEmpty)
    }

    @Test func bodiesPastTheLimitAndLyingLengthsAreCutOff() throws {
        let site = try Site()
        let run = try site.run(["convert", site.server.url("/forever"), site.server.url("/huge"), site.server.url("/short/a.png"),
                                "-o", "out", "--max-input-size", "200KB", "--json"])
        #expect(run.status == 1)
        let lines = try BatchTests.jsonLines(run.stdout).filter { $0["input"] != nil }
        let byInput = Dictionary(lines.map { ($0["input"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byInput[site.server.url("/forever")]?["error_kind"] as? String == "too_large", "\(run.stdout)")
        #expect(byInput[site.server.url("/huge")]?["error_kind"] as? String == "too_large")
        // Content-Length says 1000 bytes more than the server sends before it closes.
        #expect(byInput[site.server.url("/short/a.png")]?["error_stage"] as? String == "fetch")
        #expect((byInput[site.server.url("/short/a.png")]?["error"] as? String)?.contains("libcurl") == true)
        // Nothing is left in the temporary directory.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: site.path("tmp"))
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func theUserAgentNamesImgprep() throws {
        let site = try Site()
        let run = try site.run(["convert", site.server.url("/agent/b.jpg"), "--to", "png", "-o", "out"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(site.server.requests == ["GET /agent/b.jpg 200"])
    }

    @Test func theContentTypeNeverDecidesTheFormat() throws {
        let site = try Site()
        let run = try site.run(["convert", site.server.url("/wrongtype/a.png"), "--to", "png", "-o", "out"])
        #expect(run.status == 0, "\(run.stderr)")
        let size = try TestSupport.run("exiftool", ["-s3", "-ImageSize", site.path("out/a.png")]).stdout
        #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == "128x96")
    }

    @Test(.enabled(if: TestSupport.toolExists("openssl"), "needs openssl to make a certificate"))
    func httpsWithASelfSignedCertificateNeedsCacert() throws {
        let directory = try TestSupport.temporaryDirectory()
        let certificate = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        let made = try TestSupport.run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                                                   "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        #expect(made.status == 0, "\(made.stderr)")
        let site = try Site(tls: (certificate, key), directory: directory)
        let url = site.server.url("/plain/a.png")
        #expect(url.hasPrefix("https://"))
        let refused = try site.run(["convert", url, "-o", "out"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(": fetch: libcurl: "), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: site.path("out/a.jpg")))
        let accepted = try site.run(["convert", url, "-o", "out", "--cacert", certificate])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(FileManager.default.fileExists(atPath: site.path("out/a.jpg")))
    }

    @Test func noNetworkRefusesBeforeAnyRequest() throws {
        let site = try Site()
        let run = try site.run(["convert", "--no-network", site.server.url("/plain/a.png"), site.server.url("/plain/b.jpg"), "-o", "out"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("fetch: not downloaded: --no-network"), "\(run.stderr)")
        #expect(site.server.requests.isEmpty)
    }

    @Test func credentialsAreRefusedUnlessAllowedAndNeverPrinted() throws {
        let site = try Site()
        let url = "http://someone:s3cr3t@127.0.0.1:\(site.server.port)/plain/a.png"
        let refused = try site.run(["convert", url, "-o", "out", "--json"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("--allow-credentials"), "\(refused.stdout)")
        #expect(site.server.requests.isEmpty)
        let allowed = try site.run(["convert", url, "-o", "out", "--json", "--allow-credentials", "-v"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        for run in [refused, allowed] {
            #expect(!(run.stdout + run.stderr).contains("s3cr3t"))
            #expect(!(run.stdout + run.stderr).contains("someone"))
        }
        #expect(try BatchTests.jsonLines(allowed.stdout).first?["input"] as? String == site.server.url("/plain/a.png"))
    }

    /// A redirect to a URL with `user:password@` (absolute, or scheme-relative) is refused with one line
    /// before it is followed: the server never sees an Authorization header, nor a request for the target.
    /// With --allow-credentials it is followed.
    @Test func aRedirectToCredentialsIsRefusedAndNoAuthorizationIsSent() throws {
        let site = try Site()
        let port = site.server.port
        let targets = ["http://someone:s3cr3t@127.0.0.1:\(port)/plain/a.png", "//someone:s3cr3t@127.0.0.1:\(port)/plain/a.png",
                       "http://someone@127.0.0.1:\(port)/plain/a.png"]
        for (index, target) in targets.enumerated() {
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let run = try site.run(["convert", site.server.url("/goto?to=\(encoded)"), "-o", "out\(index)"])
            #expect(run.status == 1, "\(target): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").filter { $0.contains("--allow-credentials") }.count == 1, "\(run.stderr)")
            // The redirect's target is shown without its credentials (the input's own query holds them encoded).
            #expect(!(run.stdout + run.stderr).contains("someone:s3cr3t@") && !(run.stdout + run.stderr).contains("//someone@"))
            #expect(!FileManager.default.fileExists(atPath: site.path("out\(index)")))
        }
        #expect(site.server.count("/plain/a.png") == 0, "\(site.server.requests)")
        #expect(!site.server.requests.contains { $0.hasSuffix("Authorization") }, "\(site.server.requests)")
        let encoded = targets[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let allowed = try site.run(["convert", site.server.url("/goto?to=\(encoded)"), "-o", "allowed", "--allow-credentials"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(site.server.count("/plain/a.png") == 1)
    }

    @Test func theSameURLTwiceIsOneDownloadAndOneOutput() throws {
        let site = try Site()
        let url = site.server.url("/plain/a.png")
        let list = Data("\(url)\n\(url)\n".utf8)
        let run = try TestSupport.imgprep(["convert", url, "--files-from", "-", "-o", "out", "-j", "2"], input: list,
                                          cwd: site.directory, environment: TestSupport.environment())
        #expect(run.status == 0, "\(run.stderr)")
        #expect(site.server.count("/plain/a.png") == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: site.path("out")) == ["a.jpg"])
    }

    /// Output names come from the last path segment, decoded and made safe.
    @Test func outputNamesFromTheURL() throws {
        let site = try Site()
        let root = site.directory.appendingPathComponent("root")
        try FileManager.default.copyItem(at: root.appendingPathComponent("a.png"), to: root.appendingPathComponent("my photo.png"))
        let run = try site.run(["convert", site.server.url("/plain/my%20photo.png?size=large#top"), "-o", "out"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: site.path("out")) == ["my photo.jpg"])
        #expect(site.server.requests == ["GET /plain/my%20photo.png?size=large 200"])
    }

    @Test func dataURIs() throws {
        let site = try Site()
        let png = try TestSupport.bytes(site.path("root/a.png"))
        let base64 = Data(png).base64EncodedString()
        // Base64 with its padding percent-encoded and a line break, and the raw bytes percent-encoded.
        let wrapped = String(base64.prefix(40)) + "\n" + String(base64.dropFirst(40)).replacingOccurrences(of: "=", with: "%3D")
        let percent = png.map { String(format: "%%%02X", $0) }.joined()
        let run = try site.run(["convert", "data:image/png;base64," + wrapped, "data:text/plain," + percent,
                                "data:;base64,@@@@", "-o", "out", "--json"])
        #expect(run.status == 1)
        let lines = try BatchTests.jsonLines(run.stdout).filter { $0["input"] != nil }
        let ok = lines.filter { $0["status"] as? String == "ok" }
        // Two encodings of the same bytes: one name (the content's hash), the first claims it, the second is refused.
        let hash = SHA256.hex(SHA256.hash(png)).prefix(16)
        #expect(ok.count == 1 && ok.first?["output"] as? String == "out/data-\(hash).jpg", "\(run.stdout)")
        #expect(lines.contains { ($0["error"] as? String)?.contains("written from") == true })
        #expect(lines.contains { $0["error_stage"] as? String == "fetch" && ($0["error"] as? String)?.contains("base64") == true })
        // What lines show is the start of the URI, never its whole payload.
        #expect(lines.allSatisfy { ($0["input"] as? String ?? "").count < 60 })
        let limited = try site.run(["convert", "data:;base64," + base64, "-o", "out2", "--max-input-size", "100B", "--json"])
        #expect(try BatchTests.jsonLines(limited.stdout).first?["error_kind"] as? String == "too_large", "\(limited.stdout)")
    }

    @Test func fileURLsWithOddEncodings() throws {
        let site = try Site()
        let name = "caf\u{E9} a#1.png"
        try FileManager.default.copyItem(atPath: site.path("root/a.png"), toPath: site.path(name))
        let encoded = site.directory.path.split(separator: "/").map { String($0).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }.joined(separator: "/")
        let file = "/" + encoded + "/caf%C3%A9%20a%231.png"
        let run = try site.run(["convert", "file://" + file, "FILE://localhost" + file, "-o", "out"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: site.path("out")) == ["caf\u{E9} a#1.jpg"])
        let info = try site.run(["info", "file://" + file])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("128x96"))
        let elsewhere = try site.run(["info", "file://example.com" + file])
        #expect(elsewhere.status == 1)
        #expect(elsewhere.stderr.contains("fetch: a file: URL names a host"), "\(elsewhere.stderr)")
        let unsupported = try site.run(["convert", "ftp://127.0.0.1/a.png", "-o", "out"])
        #expect(unsupported.stderr.contains("fetch: imgprep reads http, https, file and data URLs"), "\(unsupported.stderr)")
    }

    @Test func infoReadsAURL() throws {
        let site = try Site()
        let run = try site.run(["info", "--json", site.server.url("/plain/b.jpg")])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try BatchTests.jsonLines(run.stdout).first
        #expect(line?["format"] as? String == "JPEG")
        #expect(line?["input"] as? String == site.server.url("/plain/b.jpg"))
    }

    /// Only the batch parent downloads, and only when a URL is given: no process of a batch of paths
    /// opens libcurl (glibc's loader reports what each process opened, as LazyLibjxlTests reads it).
    @Test func aBatchOfPathsNeverOpensLibcurl() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = TestSupport.fixtures.appendingPathComponent("jxl/exif.jpg").path
        let cache = directory.appendingPathComponent("cache").path
        let (run, reports) = try TestSupport.loaderReports(["convert", input, "--to", "png", "-o", directory.path, "--cache", cache], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!reports.isEmpty)
        #expect(!reports.contains { $0.contains("libcurl") })
        // Nor does it leave an HTTP cache in its --cache.
        #expect(!FileManager.default.fileExists(atPath: cache + "/http"))
    }
}
