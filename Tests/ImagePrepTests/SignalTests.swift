import Foundation
import Testing
@testable import ImagePrep

/// Nothing imgprep opens may block it for ever, and every terminating signal ends a run promptly with
/// 128 + its number, leaving no temporary file behind. Each test runs the real tool as a subprocess and
/// bounds its wait generously (a hang fails the test instead of hanging the suite).
@Suite struct SignalTests {
    static let fixture = TestSupport.fixtures.appendingPathComponent("heic/10bit-p3.heic").path

    /// A started imgprep whose standard input is a pipe the test holds open.
    final class Run {
        let process = Process()
        let input = Pipe()
        let stdoutURL: URL, stderrURL: URL

        init(_ arguments: [String], in dir: URL, binary: String = TestSupport.binary, environment: [String: String] = [:]) throws {
            let id = UUID().uuidString
            stdoutURL = dir.appendingPathComponent("stdout-\(id)")
            stderrURL = dir.appendingPathComponent("stderr-\(id)")
            _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.environment = TestSupport.environment(adding: environment)
            process.standardInput = input
            process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
            process.standardError = try FileHandle(forWritingTo: stderrURL)
            try process.run()
        }

        /// True when it ended within `seconds`; otherwise it is killed (SIGKILL) and false.
        func ended(within seconds: Double) -> Bool {
            guard !TestSupport.waitUntil(seconds: seconds, { !process.isRunning }) else { return true }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }

        var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    }

    /// `count` inputs with distinct bytes (so none is a duplicate of another), in `dir/in`.
    static func distinctInputs(_ count: Int, in dir: URL) throws -> [String] {
        let inputs = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture))
        return try (0..<count).map { index in
            let path = inputs.appendingPathComponent("p\(index).heic").path
            try (bytes + Data("\(index)".utf8)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    /// True when a thread of `pid` is blocked opening a FIFO no one writes to (the kernel's
    /// `wait_for_partner`, in /proc/PID/task/TID/wchan).
    static func waitsForAFIFOWriter(_ pid: pid_t) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/wchan", encoding: .utf8)) == "wait_for_partner" }
    }

    static func leftovers(_ directory: String) -> [String] {
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.contains(".imgprep-") }
    }

    @Test(arguments: [SIGHUP, SIGQUIT, SIGTERM, SIGINT])
    func aSignalDuringARunEndsItWithNothingLeft(_ signal: Int32) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try Self.distinctInputs(24, in: dir)
        let out = dir.appendingPathComponent("out").path
        // The list stays open, so the run is still going when the signal comes, however fast it is.
        let run = try Run(["convert", "-j", "2", "--files-from", "-", "-o", out], in: dir)
        run.input.fileHandleForWriting.write(Data(inputs.joined(separator: "\n").appending("\n").utf8))
        #expect(TestSupport.waitUntil { !BatchTests.listing(out).filter({ !$0.hasPrefix(".") }).isEmpty || !run.process.isRunning },
                "no output after a minute")
        kill(run.process.processIdentifier, signal)
        #expect(run.ended(within: 5), "still running 5 s after the signal")
        #expect(run.process.terminationReason == .exit, "killed by the signal instead of handling it: \(run.stderr)")
        #expect(run.process.terminationStatus == 128 + signal, "\(run.stderr)")
        #expect(Self.leftovers(out).isEmpty, "temporary files left: \(Self.leftovers(out))")
        #expect(run.stderr.split(separator: "\n").last?.hasPrefix("interrupted: ") == true, "no summary: \(run.stderr)")
        try? run.input.fileHandleForWriting.close()
    }

    @Test func aFIFOInTheCacheIsRefusedWithoutWaiting() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path, out = dir.appendingPathComponent("out").path
        let first = try TestSupport.imgprep(["convert", "--cache", cache, "-o", out, Self.fixture], environment: TestSupport.environment())
        #expect(first.status == 0, "\(first.stderr)")
        // An entry is XX/62 hex digits; the executables/ notes are named by inode and times, which can be 62 long too.
        let entries = try FileManager.default.subpathsOfDirectory(atPath: cache).filter {
            let parts = $0.split(separator: "/")
            return parts.count == 2 && parts[0].count == 2 && parts[1].count == 62 && parts[1].allSatisfy(\.isHexDigit)
        }
        #expect(entries.count == 1, "\(entries)")
        let entry = "\(cache)/\(try #require(entries.first))"
        try FileManager.default.removeItem(atPath: entry)
        #expect(mkfifo(entry, 0o644) == 0)
        try FileManager.default.removeItem(atPath: out)

        let run = try Run(["convert", "--cache", cache, "--timeout", "5", "-o", out, Self.fixture], in: dir)
        try run.input.fileHandleForWriting.close()
        #expect(run.ended(within: 20), "blocked on the FIFO")
        #expect(run.process.terminationStatus == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.contains("FIFO") }
        #expect(warnings.count == 1, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(out)/10bit-p3.jpg"))
    }

    @Test func aFIFOAsAnInputFailsAloneWithoutWaiting() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("pipe.heic").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let out = dir.appendingPathComponent("out").path
        let run = try Run(["convert", "-o", out, fifo, Self.fixture], in: dir)
        try run.input.fileHandleForWriting.close()
        #expect(run.ended(within: 20), "blocked on the FIFO")
        #expect(run.process.terminationStatus == 1, "\(run.stderr)")
        #expect(run.stderr.contains("pipe.heic: read: not a regular file (a FIFO or pipe)"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(out)/10bit-p3.jpg"))
    }

    /// A named pipe as the list blocks until a writer comes (that is what a FIFO list means), but a
    /// signal still ends the run at once, as it does anything else the run is waiting for.
    @Test func aSignalEndsARunWaitingForAWriter() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("list").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let run = try Run(["convert", "--files-from", fifo, "-o", dir.appendingPathComponent("out").path], in: dir)
        // Blocked opening the FIFO (its handlers, installed first, are in place by then).
        let pid = run.process.processIdentifier
        #expect(TestSupport.waitUntil { Self.waitsForAFIFOWriter(pid) || !run.process.isRunning }, "never waited on the FIFO")
        // One signal, once: it was lost twice in the full parallel run before the handled signals were
        // blocked (pending until libdispatch had registered its sources; see SignalWatcher.init).
        kill(pid, SIGTERM)
        let ended = TestSupport.waitUntil(seconds: 20) { !run.process.isRunning }
        #expect(ended && run.ended(within: 5), "still running 20 s after SIGTERM")
        #expect(run.process.terminationReason == .exit, "\(run.stderr)")
        #expect(run.process.terminationStatus == 128 + SIGTERM, "\(run.stderr)")
        #expect(run.stderr.contains("imgprep: interrupted by SIGTERM"), "\(run.stderr)")
    }

    /// `info` handles the signals as a batch does: the file in flight (here one that stalls in its worker
    /// for ever, the test hook) is abandoned, its worker killed, and the run exits 128 + the signal.
    @Test(.enabled(if: TestSupport.hasTestHooks, "needs the test hooks (-D IMGPREP_TEST_HOOKS, as make test builds)"),
          arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func aSignalEndsInfoLikeABatch(_ signal: Int32, name: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stalled = try #require(try Self.distinctInputs(1, in: dir).first)
        let size = try TestSupport.bytes(stalled).count
        let run = try Run(["info", Self.fixture, stalled], in: dir, binary: TestSupport.hooksBinary,
                          environment: ["IMGPREP_TEST_STALL": "decode:\(size)"])
        let pid = run.process.processIdentifier
        // The first file listed: the second, in its worker, never will be.
        #expect(TestSupport.waitUntil { run.stdout.contains("\(Self.fixture):") || !run.process.isRunning }, "nothing listed")
        let workers = TestSupport.children(of: pid)
        #expect(!workers.isEmpty, "no worker holds the stalled file")
        kill(pid, signal)
        #expect(run.ended(within: 5), "still running 5 s after the signal")
        #expect(run.process.terminationReason == .exit, "killed by the signal instead of handling it: \(run.stderr)")
        #expect(run.process.terminationStatus == 128 + signal, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").last == "imgprep: interrupted by \(name)", "\(run.stderr)")
        #expect(!run.stdout.contains("\(stalled):"), "\(run.stdout)")
        #expect(TestSupport.waitUntil { !workers.contains(where: TestSupport.isRunning) }, "workers left running: \(workers)")
        try? run.input.fileHandleForWriting.close()
    }
}

