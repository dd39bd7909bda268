import Foundation
import Synchronization
import Testing
@testable import ImagePrep

/// Files are prepared in worker processes: a worker that dies or overruns --timeout costs its own
/// file only, and the batch goes on. These run the real binary.
@Suite(.serialized) struct WorkerTests {
    let heic = TestSupport.fixtures.appendingPathComponent("heic").path

    /// A JPEG that takes a worker a noticeable while to decode and re-encode (seeded noise defeats
    /// any shortcut), written once per test run.
    static let slowJPEG: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("imgprep-slow-\(getpid()).jpg").path
        var generator = SplitMix64(seed: 7)
        let (width, height) = (5000, 4000)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in stride(from: 0, to: pixels.count, by: 8) {
            let value = generator.next()
            for byte in 0..<min(8, pixels.count - index) { pixels[index + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(byte))) }
        }
        let image = PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
        let jpeg = try? JPEGEncoder().encode(image, quality: 95, settings: JPEGSettings())
        _ = FileManager.default.createFile(atPath: path, contents: Data(jpeg ?? []))
        return path
    }()

    /// Small good inputs: every fixture HEIC.
    var fixtures: [String] {
        ["10bit", "alpha", "gps-p3", "gray", "orientation-6"].map { "\(heic)/\($0).heic" }
    }

    /// SIGSEGV is what a crash inside a C decoder looks like; Swift's crash reporter must not then fill
    /// stderr with a backtrace.
    @Test(arguments: [SIGKILL, SIGSEGV])
    func aWorkerKilledMidBatchCostsOnlyTheFileItHeld(signal: Int32) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = ["convert", "-j", "2", "--json", "-o", out, fixtures[0], fixtures[1], Self.slowJPEG] + fixtures.dropFirst(2)
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The worker holding the slow file is the one whose memory grows past what a fixture needs, once
        // the whole file has arrived: a worker killed while the file is still on the pipe never saw it,
        // and the file gets a fresh worker (the slow file, the largest, starts first at -j 2).
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: Self.slowJPEG)[.size] as? Int)
        var victim: pid_t?
        let deadline = Date().addingTimeInterval(30)
        while victim == nil && Date() < deadline && process.isRunning {
            victim = TestSupport.children(of: process.processIdentifier).first { TestSupport.residentBytes($0) > fileSize + 60 << 20 }
            Thread.sleep(forTimeInterval: 0.002)
        }
        let killed = try #require(victim, "no worker ever held the slow file")
        kill(killed, signal)
        let lines = try BatchTests.jsonLines(String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!errors.contains("Backtrace") && !errors.contains("Crashed"), "\(errors)")
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let failed = lines.filter { $0["status"] as? String == "failed" }
        #expect(failed.count == 1, "\(failed)")
        #expect(failed.first?["input"] as? String == Self.slowJPEG)
        #expect(failed.first?["error_kind"] as? String == "crashed")
        let message = failed.first?["error"] as? String ?? ""
        #expect(message.hasPrefix("killed by \(signal == SIGKILL ? "SIGKILL" : "SIGSEGV"); "), "\(message)")
        // Killed once its memory grew: decoding or later, never before the file was recognised.
        let stage = failed.first?["error_stage"] as? String
        #expect(["decode", "orient", "resize", "colour", "encode"].contains(stage), "\(failed)")
        let converted = lines.filter { $0["status"] as? String == "ok" }.compactMap { $0["input"] as? String }
        #expect(Set(converted) == Set(fixtures))
        #expect(BatchTests.listing(out).filter { $0.hasPrefix(".") }.isEmpty, "temporary files left")
        #expect(!TestSupport.isRunning(killed))
    }

    /// Makes the slow JPEG stall at `stage` (IMGPREP_TEST_STALL, read by `TestSupport.hooksBinary` only), so a timeout does not depend on how fast
    /// this machine decodes: a JPEG written as JPEG at its own size is not even decoded (its coefficients
    /// are kept), so in a busy full run it once finished inside the timeout.
    func stalling(at stage: String = "decode", isolation: Bool = true) throws -> [String: String] {
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Self.slowJPEG)[.size] as? Int)
        return TestSupport.environment(adding: ["IMGPREP_TEST_STALL": "\(stage):\(size)"]
                                        .merging(isolation ? [:] : ["IMGPREP_ISOLATION": "off"]) { $1 })
    }

    /// In a worker (which is killed) and in-process (`IMGPREP_ISOLATION=off`, where the thread is abandoned).
    @Test(.enabled(if: TestSupport.hasTestHooks, "needs the test hooks (-D IMGPREP_TEST_HOOKS, as make test builds)"),
          arguments: [true, false])
    func aFileOverTheTimeoutFailsAloneAndLeavesNothing(isolation: Bool) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let run = try TestSupport.run(TestSupport.hooksBinary, ["convert", "--timeout", TestSupport.stallTimeout, "-j", "2", "--json", "-o", out, Self.slowJPEG] + fixtures,
                                      environment: stalling(isolation: isolation))
        #expect(run.status == 1, "\(run.stderr)")
        let lines = try BatchTests.jsonLines(run.stdout)
        let failed = lines.filter { $0["status"] as? String == "failed" }
        #expect(failed.count == 1)
        #expect(failed.first?["input"] as? String == Self.slowJPEG)
        #expect(failed.first?["error_kind"] as? String == "timeout")
        let message = (failed.first?["error"] as? String) ?? ""
        #expect(message.hasPrefix("no result after \(TestSupport.stallTimeout) s; "), "\(failed)")
        #expect(failed.first?["error_stage"] as? String == "decode", "\(failed)")
        #expect(lines.filter { $0["status"] as? String == "ok" }.count == fixtures.count)
        #expect(BatchTests.listing(out).count == fixtures.count, "\(BatchTests.listing(out))")
    }

    /// VmHWM: the most resident memory `pid` has had.
    static func highWaterMark(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
    }

    @Test(.enabled(if: TestSupport.hasTestHooks, "needs the test hooks (-D IMGPREP_TEST_HOOKS, as make test builds)"))
    func theTimeoutMessageIsOneLineWithoutJSON() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.run(TestSupport.hooksBinary, ["convert", "--timeout", TestSupport.stallTimeout, "-o", dir.path, Self.slowJPEG, fixtures[2]],
                                      environment: stalling())
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("imgprep: ") }
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(lines.first?.contains("\(Self.slowJPEG): decode: no result after \(TestSupport.stallTimeout) s") == true, "\(run.stderr)")
    }

    /// The memory gate admits a file before the batch reads it: four 60 MB files at -j 4 under a 1 MB
    /// limit are read one at a time, so the batch process never holds two of them at once (it once held
    /// all four, read before the gate). In a worker and in-process.
    @Test(arguments: [true, false])
    func filesAreAdmittedBeforeTheyAreRead(isolation: Bool) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let padding = 60_000_000
        let picture = try TestSupport.bytes("\(heic)/gray.heic")
        let inputs = try (0..<4).map { index -> String in
            // A trailing `free` box: a small picture in a large file, and each file distinct.
            let box = withUnsafeBytes(of: UInt32(padding).bigEndian, Array.init) + Array("free".utf8)
            let file = picture + box + [UInt8](repeating: UInt8(index), count: padding - 8)
            let path = dir.appendingPathComponent("big\(index).heic").path
            try Data(file).write(to: URL(fileURLWithPath: path))
            return path
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = ["convert", "-j", "4", "--memory-limit", "1MB", "--quiet", "-o", dir.appendingPathComponent("out").path] + inputs
        process.environment = TestSupport.environment(adding: isolation ? [:] : ["IMGPREP_ISOLATION": "off"])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The kernel's high-water mark of the batch process, read until it exits: no peak goes unseen.
        var peak = 0
        while process.isRunning {
            peak = max(peak, Self.highWaterMark(process.processIdentifier))
            Thread.sleep(forTimeInterval: 0.002)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(BatchTests.listing(dir.appendingPathComponent("out").path).count == 4)
        print("WorkerTests: four 60 MB files at -j 4 --memory-limit 1MB, isolation \(isolation): the batch process peaked at \(peak >> 20) MB")
        // One file held (and in-process, libheif's copy of it), and the runtime: below three files.
        #expect(peak < 3 * padding, "the batch process peaked at \(peak >> 20) MB")
    }

    @Test(arguments: [["--timeout", "-1"], ["--timeout", "soon"], ["--memory-limit", "1Mb"], ["--memory-limit", "lots"]])
    func badLimitsAreUsageErrors(_ arguments: [String]) throws {
        let run = try TestSupport.imgprep(["convert"] + arguments + ["\(heic)/gray.heic", "-o", "/nonexistent-never-written"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("'\(arguments[1])'"), "\(run.stderr)")
    }

    /// `info` reads files with libheif and libexif in a worker too, so a file that crashes them cannot end
    /// the listing of the others.
    @Test func infoReadsFilesInAWorker() throws {
        let process = Process(), stdout = Pipe()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = ["info", "--json", Self.slowJPEG] + fixtures
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        var workers = Set<pid_t>()
        let output = Mutex(Data())
        let reader = Thread { output.withLock { $0 = stdout.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        while process.isRunning {
            workers.formUnion(TestSupport.children(of: process.processIdentifier))
            Thread.sleep(forTimeInterval: 0.001)
        }
        process.waitUntilExit()
        #expect(TestSupport.waitUntil { reader.isFinished }, "stdout never closed")
        #expect(process.terminationStatus == 0)
        #expect(!workers.isEmpty, "info never started a worker")
        let lines = try BatchTests.jsonLines(String(decoding: output.withLock { $0 }, as: UTF8.self))
        #expect(lines.count == fixtures.count + 1 && lines.allSatisfy { $0["status"] as? String == "ok" })
    }

    @Test func noWorkerOutlivesTheBatch() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = ["convert", "-j", "3", "-o", dir.path] + fixtures
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var workers = Set<pid_t>()
        while process.isRunning {
            workers.formUnion(TestSupport.children(of: process.processIdentifier))
            Thread.sleep(forTimeInterval: 0.001)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(!workers.isEmpty, "never saw a worker process")
        #expect(workers.filter(TestSupport.isRunning).isEmpty, "workers left running: \(workers)")
    }

    /// Four 200 MP photos at -j 4 would take about 5 GB at once; with --memory-limit 1500MB they must run
    /// one after another, all convert, and the whole process tree must stay under 1.5 GB.
    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus: the 200 MP memory test is skipped"))
    func fourHugePhotosStayWithinTheMemoryLimit() throws {
        let source = try #require(TestSupport.corpus).appendingPathComponent("heic/pillow_heif__200MP.heic").path
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Four distinct files: links to one would be prepared once (the run's de-duplication) and so
        // would not test the gate.
        let inputs = try DistinctInputs.copies(of: source, count: 4, in: dir.path) { "huge\($0 + 1).heic" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = ["convert", "-j", "4", "--memory-limit", "1500MB", "--quiet", "-o", dir.appendingPathComponent("out").path] + inputs
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var peak = 0
        while process.isRunning {
            let tree = [process.processIdentifier] + TestSupport.children(of: process.processIdentifier)
            peak = max(peak, tree.map(TestSupport.residentBytes).reduce(0, +))
            Thread.sleep(forTimeInterval: 0.005)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(BatchTests.listing(dir.appendingPathComponent("out").path).count == 4)
        print("WorkerTests: four 200 MP photos at -j 4 --memory-limit 1500MB peaked at \(peak >> 20) MB (parent and workers)")
        #expect(peak < 1_500_000_000, "peak \(peak) bytes")
    }

    /// AV1 and HEVC encoders need about twice a JPEG's memory per pixel; a worker's ceiling sized for a
    /// JPEG once failed a 200 MP AVIF ("Failed to encode frame") and killed a HEIC (SIGSEGV in x265).
    /// A 50 MP picture shows the same at a tenth of the time.
    @Test(arguments: ["avif", "heic"])
    func largePicturesEncodeWithinTheirWorkersCeiling(_ format: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("big.png").path
        let make = try TestSupport.run("convert", ["-size", "8192x6144", "gradient:#203040-#e0c0a0", "-depth", "8", source])
        #expect(make.status == 0, "\(make.stderr)")
        let run = try TestSupport.imgprep(["convert", source, "--to", format, "-j", "1", "-o", dir.appendingPathComponent("out").path])
        #expect(run.status == 0, "\(run.stderr)")
        let tags = try TestSupport.exiftool(dir.appendingPathComponent("out/big.\(format)").path)
        #expect(tags["Composite:ImageSize"] as? String == "8192 6144", "\(tags)")
    }
}
