import Foundation
import Testing
@testable import ImagePrep

/// Running beyond one machine, with the real binary: shards from --shard K/N and from each engine's
/// variables reproduce a single run byte for byte, the output cache survives a fresh checkout and
/// damaged entries, identical inputs are prepared once, and a slow list starts converting at once.
@Suite(.serialized) struct ClusterTests {
    /// A tree of small, distinct photos in nested folders (`photos/`), made once per test.
    static func makeTree(in dir: URL, count: Int = 24, seed: UInt64 = 1) throws -> URL {
        let root = dir.appendingPathComponent("photos")
        var generator = SplitMix64(seed: seed)
        for index in 0..<count {
            let (width, height) = (48 + generator.next(below: 32), 32 + generator.next(below: 32))
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            let base = (UInt8(generator.next(below: 256)), UInt8(generator.next(below: 256)), UInt8(generator.next(below: 256)))
            for i in stride(from: 0, to: pixels.count, by: 3) {
                pixels[i] = base.0 &+ UInt8(i % 97); pixels[i + 1] = base.1; pixels[i + 2] = base.2 &+ UInt8(i % 13)
            }
            let jpeg = try JPEGEncoder().encode(PixelBuffer(width: width, height: height, channels: 3, pixels: pixels),
                                                quality: 90, settings: JPEGSettings())
            let folder = root.appendingPathComponent(["a", "b/c", "d"][index % 3])
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(jpeg).write(to: folder.appendingPathComponent("img\(index).jpg"))
        }
        return root
    }

    /// Every file under `directory` (relative path → bytes).
    static func contents(of directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return result }
        for case let relative as String in walker {
            let url = directory.appendingPathComponent(relative)
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                result[relative] = try Data(contentsOf: url)
            }
        }
        return result
    }

    static let convert = ["convert", "-r", "photos", "--to", "png", "--max-dimension", "40", "-o", "out", "--json"]

    /// Starts one imgprep per (arguments, environment) at the same time, as a CI matrix or a job array
    /// does, and waits for all; returns each one's JSON lines.
    static func runConcurrently(_ copies: [(arguments: [String], environment: [String: String])], cwd: URL) throws -> [[[String: Any]]] {
        var processes: [(Process, Pipe)] = []
        for (arguments, environment) in copies {
            let process = Process(), stdout = Pipe()
            process.executableURL = URL(fileURLWithPath: TestSupport.binary)
            process.arguments = arguments
            process.currentDirectoryURL = cwd
            process.environment = TestSupport.environment(adding: environment)
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            processes.append((process, stdout))
        }
        return try processes.map { process, stdout in
            let lines = try BatchTests.jsonLines(String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return lines
        }
    }

    static func inputs(_ lines: [[String: Any]]) -> [String] {
        lines.compactMap { $0["input"] as? String }
    }

    /// One single run of `convert` into `single/`.
    static func singleRun(in dir: URL) throws -> [String: Data] {
        let run = try TestSupport.imgprep(["convert", "-r", "photos", "--to", "png", "--max-dimension", "40", "-o", "single"],
                                          cwd: dir, environment: TestSupport.environment())
        #expect(run.status == 0, "\(run.stderr)")
        return try contents(of: dir.appendingPathComponent("single"))
    }

    /// The engines' own variables for shard `k` (1-based) of `n`, as each starts its copies.
    static let engines: [(name: String, variables: @Sendable (Int, Int) -> [String: String])] = [
        ("--shard K/N", { _, _ in [:] }),
        ("GitLab", { k, n in ["CI_NODE_INDEX": "\(k)", "CI_NODE_TOTAL": "\(n)"] }),
        ("CircleCI", { k, n in ["CIRCLE_NODE_INDEX": "\(k - 1)", "CIRCLE_NODE_TOTAL": "\(n)"] }),
        ("Buildkite", { k, n in ["BUILDKITE_PARALLEL_JOB": "\(k - 1)", "BUILDKITE_PARALLEL_JOB_COUNT": "\(n)"] }),
        // sbatch --array=5-11:3 (tasks 5, 8, 11)
        ("Slurm", { k, n in ["SLURM_ARRAY_TASK_ID": "\(5 + 3 * (k - 1))", "SLURM_ARRAY_TASK_MIN": "5",
                             "SLURM_ARRAY_TASK_MAX": "\(5 + 3 * (n - 1))", "SLURM_ARRAY_TASK_COUNT": "\(n)",
                             "SLURM_ARRAY_TASK_STEP": "3"] }),
        ("Kubernetes", { k, n in ["JOB_COMPLETION_INDEX": "\(k - 1)", "IMGPREP_SHARD_COUNT": "\(n)"] }),
    ]

    @Test(arguments: engines.indices)
    func shardsTogetherAreExactlyOneRun(_ engine: Int) throws {
        let (name, variables) = Self.engines[engine]
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.makeTree(in: dir)
        let single = try Self.singleRun(in: dir)
        let n = 3
        // N copies at once over one input tree, one output tree and one cache directory.
        let sharded = try Self.runConcurrently((1...n).map { k in
            (Self.convert + ["--cache", "cache", "--shard", name == "--shard K/N" ? "\(k)/\(n)" : "auto"], variables(k, n))
        }, cwd: dir)
        let perShard = sharded.map { Self.inputs($0) }
        let all = perShard.flatMap { $0 }
        #expect(all.count == Set(all).count, "\(name): a file was done twice")
        #expect(all.count == single.count, "\(name): \(all.count) files in the shards, \(single.count) in one run")
        #expect(perShard.allSatisfy { !$0.isEmpty }, "\(name): an empty shard out of \(n) with 24 files is unlikely")
        for (k, lines) in sharded.enumerated() {
            let summary = lines.last?["summary"] as? [String: Any]
            #expect(summary?["shard"] as? String == "\(k + 1)/\(n)", "\(name): \(String(describing: summary))")
        }
        #expect(try Self.contents(of: dir.appendingPathComponent("out")) == single, "\(name): outputs differ from a single run")
    }

    @Test func addingAFileMovesNoOtherFileBetweenShards() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.makeTree(in: dir)
        func assignment() throws -> [String: Int] {
            var shardOf: [String: Int] = [:]
            for k in 1...4 {
                let run = try TestSupport.imgprep(Self.convert + ["--shard", "\(k)/4", "--dry-run"], cwd: dir,
                                                  environment: TestSupport.environment())
                for input in Self.inputs(try BatchTests.jsonLines(run.stdout)) { shardOf[input] = k }
            }
            return shardOf
        }
        let before = try assignment()
        try FileManager.default.copyItem(at: dir.appendingPathComponent("photos/a/img0.jpg"),
                                         to: dir.appendingPathComponent("photos/a/new.jpg"))
        let after = try assignment()
        #expect(after.count == before.count + 1)
        for (input, shard) in before { #expect(after[input] == shard, "\(input) moved from shard \(shard) to \(String(describing: after[input]))") }
    }

    @Test func shardAutoWithNoEngineIsAUsageError() throws {
        let run = try TestSupport.imgprep(["convert", "x.heic", "--shard", "auto"], environment: TestSupport.environment())
        #expect(run.status == 2)
        #expect(run.stderr.contains("CI_NODE_INDEX") && run.stderr.contains("JOB_COMPLETION_INDEX"), "\(run.stderr)")
    }

    // MARK: the output cache

    @Test func aWarmCacheOverAFreshCheckoutIsAllHitsWithIdenticalOutputs() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.makeTree(in: dir)
        let cold = try TestSupport.imgprep(Self.convert + ["--cache", "cache"], cwd: dir, environment: TestSupport.environment())
        #expect(cold.status == 0, "\(cold.stderr)")
        #expect(try BatchTests.jsonLines(cold.stdout).allSatisfy { $0["cached"] == nil })
        // A fresh checkout: the same files at another path, with new modification times.
        let fresh = dir.appendingPathComponent("clone")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
        _ = try TestSupport.run("cp", ["-r", dir.appendingPathComponent("photos").path, fresh.path])
        let warm = try TestSupport.imgprep(Self.convert + ["--cache", "../cache"], cwd: fresh, environment: TestSupport.environment())
        #expect(warm.status == 0, "\(warm.stderr)")
        let lines = try BatchTests.jsonLines(warm.stdout)
        let files = lines.filter { $0["summary"] == nil }
        #expect(files.count == 24 && files.allSatisfy { $0["cached"] as? Bool == true }, "\(warm.stdout)")
        #expect((lines.last?["summary"] as? [String: Any])?["encodes"] as? Int == 0)
        #expect(try Self.contents(of: fresh.appendingPathComponent("out")) == Self.contents(of: dir.appendingPathComponent("out")))
    }

    @Test func damagedEntriesAreMissesNeverOutputs() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.makeTree(in: dir, count: 9)
        let environment = TestSupport.environment(adding: ["IMGPREP_CACHE": "cache"])   // the variable instead of --cache
        #expect(try TestSupport.imgprep(Self.convert, cwd: dir, environment: environment).status == 0)
        let reference = try Self.contents(of: dir.appendingPathComponent("out"))
        // Truncate one entry, flip a byte in another, empty a third.
        let entries = try Self.contents(of: dir.appendingPathComponent("cache")).keys
            .filter { !$0.hasSuffix("CACHEDIR.TAG") && !$0.hasPrefix("executables/") }.sorted()   // entries only
        #expect(entries.count == 9)
        func damage(_ relative: String, _ change: (inout Data) -> Void) throws {
            let url = dir.appendingPathComponent("cache/\(relative)")
            var data = try Data(contentsOf: url)
            change(&data)
            try data.write(to: url)
        }
        try damage(entries[0]) { $0 = $0.prefix($0.count / 2) }
        try damage(entries[1]) { $0[$0.count / 2] ^= 0x40 }
        try damage(entries[2]) { $0 = Data() }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("out"))
        let run = try TestSupport.imgprep(Self.convert, cwd: dir, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let files = try BatchTests.jsonLines(run.stdout).filter { $0["summary"] == nil }
        #expect(files.filter { $0["cached"] as? Bool == true }.count == 6)
        #expect(try Self.contents(of: dir.appendingPathComponent("out")) == reference)
    }

    @Test func twoProcessesShareOneCache() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.makeTree(in: dir)
        let both = try Self.runConcurrently(Array(repeating: (Self.convert + ["--cache", "cache"], [:]), count: 2), cwd: dir)
        #expect(both.allSatisfy { Self.inputs($0).count == 24 })
        let third = try TestSupport.imgprep(Self.convert + ["--cache", "cache", "-o", "out3"], cwd: dir, environment: TestSupport.environment())
        let files = try BatchTests.jsonLines(third.stdout).filter { $0["summary"] == nil }
        #expect(files.allSatisfy { $0["cached"] as? Bool == true })
        #expect(try Self.contents(of: dir.appendingPathComponent("out3")) == Self.contents(of: dir.appendingPathComponent("out")))
    }

    // MARK: duplicates and streaming

    @Test func aDuplicateInputCostsNoSecondEncode() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        for name in ["one.heic", "two.heic", "three.heic"] {
            try FileManager.default.copyItem(atPath: fixture, toPath: dir.appendingPathComponent(name).path)
        }
        let run = try TestSupport.imgprep(["convert", "one.heic", "two.heic", "three.heic", "-o", "out", "--json", "-j", "3"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try BatchTests.jsonLines(run.stdout)
        let files = lines.filter { $0["summary"] == nil }
        let duplicates = files.filter { $0["duplicate_of"] != nil }
        #expect(duplicates.count == 2, "\(files)")
        let first = files.first { $0["duplicate_of"] == nil }?["input"] as? String
        #expect(duplicates.allSatisfy { $0["duplicate_of"] as? String == first && $0["encodes"] as? Int == 0 })
        #expect((lines.last?["summary"] as? [String: Any])?["encodes"] as? Int == 1)
        let outputs = try Self.contents(of: dir.appendingPathComponent("out"))
        #expect(outputs.count == 3 && Set(outputs.values).count == 1)
    }

    @Test func theFirstResultOfASlowListArrivesBeforeTheListEnds() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let heic = TestSupport.fixtures.appendingPathComponent("heic")
        let process = Process(), stdin = Pipe(), stdout = Pipe()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = ["convert", "--files-from", "-", "-o", dir.path, "--json"]
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data("\(heic.path)/gray.heic\n".utf8))
        // The list is still open: the first JSON line must come anyway.
        var received = Data()
        let reader = stdout.fileHandleForReading
        let deadline = Date().addingTimeInterval(30)
        while !received.contains(UInt8(ascii: "\n")) && Date() < deadline {
            received.append(reader.availableData)
        }
        let first = try #require(String(data: received, encoding: .utf8)?.split(separator: "\n").first)
        #expect(first.contains("gray.heic") && first.contains("\"status\":\"ok\""), "\(first)")
        #expect(process.isRunning, "imgprep must still be waiting for the rest of the list")
        stdin.fileHandleForWriting.write(Data("\(heic.path)/alpha.heic\n\(heic.path)/10bit.heic".utf8))
        try stdin.fileHandleForWriting.close()
        let rest = reader.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = try BatchTests.jsonLines(String(decoding: received + rest, as: UTF8.self))
        #expect((lines.last?["summary"] as? [String: Any])?["converted"] as? Int == 3)
    }
}
