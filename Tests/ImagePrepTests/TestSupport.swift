import Foundation
import Testing
@testable import ImagePrep

/// Paths and helpers shared by the tests that run the real tool and the real reference decoders.
enum TestSupport {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// The shared corpus of real photos (read-only, never copied into the repo), if this machine has it.
    static let corpus: URL? = {
        let candidates: [String?] = [ProcessInfo.processInfo.environment["IMGPREP_CORPUS"],
                                     packageRoot.appendingPathComponent("../shared/corpus").standardized.path]
        return candidates.compactMap { $0 }.map { URL(fileURLWithPath: $0) }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path) }
    }()

    /// The imgprep binary the CLI tests run: `make test` names the one it installs (IMGPREP_TEST_BINARY,
    /// the Swift runtime linked in, no test hooks), so what ships is what is tested; otherwise the one
    /// SwiftPM built next to the test bundle.
    static let binary: String = {
        if let named = ProcessInfo.processInfo.environment["IMGPREP_TEST_BINARY"], !named.isEmpty { return named }
        return besideTheBundle
    }()

    /// The imgprep SwiftPM built next to the test bundle, with the bundle's flags: it has the test hooks
    /// (IMGPREP_TEST_STALL) when the tests do. Only the tests that need a hook run it.
    static let hooksBinary = besideTheBundle

    /// Whether this build has the test hooks: `make test` passes `-D IMGPREP_TEST_HOOKS` to `swift test`
    /// only, never to the binary it ships. Tests that need one are skipped, saying so, without it.
    static let hasTestHooks: Bool = {
        #if IMGPREP_TEST_HOOKS
        return true
        #else
        return false
        #endif
    }()

    /// `--timeout` for the tests that stall a stage with IMGPREP_TEST_STALL: the stall lasts an hour, so
    /// only the way there must fit. 0.25 s did not on a loaded two-core machine (the worker was still
    /// sniffing when the time ran out); 4 s is far past any start-up, and each such test waits it once.
    static let stallTimeout = "4"

    private static let besideTheBundle: String = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("imgprep").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/imgprep").path
    }()

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program to completion; stdin is /dev/null unless `input` is given. `environment` replaces
    /// the test's own environment when given.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, cwd: URL? = nil,
                    environment: [String: String]? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        if let cwd { process.currentDirectoryURL = cwd }
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try inPipe.fileHandleForWriting.close()
        }
        // Read both pipes concurrently so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()  // written by one queue, read after group.wait()
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A program's exit status and standard output as bytes (exiftool -b writes binary); stderr is dropped.
    static func capture(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()  // before waiting, so a full pipe cannot stall it
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](data))
    }

    @discardableResult
    static func imgprep(_ arguments: [String], input: Data? = nil, cwd: URL? = nil,
                        environment: [String: String]? = nil) throws -> Run {
        try run(binary, arguments, input: input, cwd: cwd, environment: environment)
    }

    /// The test's environment without any variable a CI system or scheduler sets for sharding, plus `extra`.
    static func environment(adding extra: [String: String] = [:]) -> [String: String] {
        let sharding = ["CI_NODE_INDEX", "CI_NODE_TOTAL", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", "BUILDKITE_PARALLEL_JOB",
                        "BUILDKITE_PARALLEL_JOB_COUNT", "JOB_COMPLETION_INDEX", "IMGPREP_SHARD_COUNT", "IMGPREP_CACHE"]
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            !sharding.contains(key) && !key.hasPrefix("SLURM_ARRAY_")
        }
        environment.merge(extra) { _, new in new }
        return environment
    }

    static func toolExists(_ name: String) -> Bool {
        (try? run("sh", ["-c", "command -v \(name)"]).status) == 0
    }

    /// A fresh empty directory, removed by the caller's `defer`.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imgprep-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every tag exiftool reads, keyed "Group:Tag", numeric values (`exiftool -j -n -G1 -a`).
    static func exiftool(_ path: String, _ extra: [String] = []) throws -> [String: Any] {
        let result = try run("exiftool", ["-j", "-n", "-G1", "-a"] + extra + [path])
        let array = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return array?.first ?? [:]
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// PSNR in dB between two RGB images of the same size (alpha ignored).
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height, "sizes differ: \(a.width)x\(a.height) vs \(b.width)x\(b.height)")
        var sum = 0.0
        for i in 0..<(a.width * a.height) {
            for c in 0..<3 {
                let d = Double(a.pixels[i * a.channels + c]) - Double(b.pixels[i * b.channels + c])
                sum += d * d
            }
        }
        let mse = sum / Double(a.width * a.height * 3)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// Decodes a JPEG or PNG with our decoders (verified elsewhere against libjpeg/libpng behaviour).
    static func decode(_ path: String) throws -> PixelBuffer {
        let data = try bytes(path)
        if data.starts(with: [0x89, 0x50]) { return try PNGDecoder.decode(data, maxPixels: Int.max).0 }
        return try JPEGDecoder.decode(data, scaleDenominator: 1)
    }
}

/// A tiny seeded generator, so a failing mutation can be reproduced.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

extension TestSupport {
    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// VmRSS of a process in bytes (0 when it is gone).
    static func residentBytes(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
    }

    /// Whether `pid` is a live process (not gone, not a zombie).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}
