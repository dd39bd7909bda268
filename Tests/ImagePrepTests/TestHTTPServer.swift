import Foundation

/// scripts/http-test-server.py on 127.0.0.1, started for one test: it serves `root` under routes that
/// each misbehave one way (the script lists them) and logs every request it answers, so a test can
/// count requests and see their statuses. It ends when `stop` closes its standard input.
final class TestHTTPServer {
    let port: Int
    let scheme: String
    private let process = Process()
    private let input = Pipe()
    private let log: URL

    /// `tls`: a certificate and key (PEM) to serve HTTPS with.
    init(root: URL, log: URL, tls: (certificate: String, key: String)? = nil) throws {
        self.log = log
        scheme = tls == nil ? "http" : "https"
        let script = TestSupport.packageRoot.appendingPathComponent("scripts/http-test-server.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--root", root.path, "--log", log.path] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The port is the first line: the server listens before it prints it.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0A]) { line += byte }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw TestServerError(message: "the test server did not start (printed \(String(decoding: line, as: UTF8.self).debugDescription))")
        }
        self.port = port
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// "GET /etag/a.png 304", one per request answered so far.
    var requests: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func count(_ path: String) -> Int { requests.filter { $0.split(separator: " ").dropFirst().first.map(String.init) == path }.count }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct TestServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
