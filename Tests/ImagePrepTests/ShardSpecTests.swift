import Foundation
import Testing
@testable import ImagePrep

@Suite struct ShardSpecTests {
    static func parse(_ text: String, _ environment: [String: String] = [:]) throws(ShardSpecError) -> ShardSpec {
        try ShardSpec(parsing: text, environment: environment)
    }

    /// The message of the error `text` gives, or nil when it parses.
    static func problem(_ text: String, _ environment: [String: String] = [:]) -> String? {
        do {
            _ = try parse(text, environment)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: K/N

    @Test func explicitShards() throws {
        let shard = try Self.parse("2/5")
        #expect(shard.index == 2 && shard.count == 5 && shard.description == "2/5" && shard.origin == "--shard")
        #expect(try Self.parse("1/1").count == 1)
        #expect(try Self.parse("7/7").index == 7)
    }

    @Test(arguments: ["0/4", "5/4", "1/0", "0/0", "-1/4", "+1/4", "1/-4", "1", "1/", "/4", "1/4/2", "a/b", "1.5/4",
                      " 1/4", "1/4 ", "1 / 4", "", "AUTO", "99999999999999999999/4"])
    func badValuesAreUsageErrorsQuotingThem(text: String) throws {
        let message = try #require(Self.problem(text), "'\(text)' must be refused")
        #expect(message.contains("'\(text)'"), "\(message)")
    }

    @Test func outOfRangeSaysWhy() {
        #expect(Self.problem("0/4")?.contains("count from 1, so K must be 1...4") == true)
        #expect(Self.problem("1/0")?.contains("at least 1") == true)
    }

    @Test func decodingChecksTheRules() throws {
        let good = try JSONEncoder().encode(try Self.parse("3/4"))
        #expect(try JSONDecoder().decode(ShardSpec.self, from: good) == (try Self.parse("3/4")))
        let bad = Data(#"{"index":1,"count":0,"origin":"--shard"}"#.utf8)
        #expect(throws: ShardSpecError.self) { try JSONDecoder().decode(ShardSpec.self, from: bad) }
    }

    // MARK: Assignment

    /// Pinned values (computed with Python's hashlib): the assignment must never change between
    /// imgprep versions, or machines running different versions would skip or repeat files.
    @Test func assignmentIsPinned() {
        let pinned: [([UInt8], [Int])] = [
            (Array("IMG_0001.heic".utf8), [2, 3, 2, 1, 8]),
            (Array("photos/2024/IMG_0002.HEIC".utf8), [2, 2, 2, 6, 6]),
            (Array("a.jpg".utf8), [1, 2, 3, 5, 7]),
            (Array("sub/dir/b.png".utf8), [2, 1, 4, 3, 4]),
            ([0x62, 0x61, 0x64, 0xFF, 0x2E, 0x6A, 0x70, 0x67], [2, 3, 2, 4, 6]),
        ]
        for (key, shards) in pinned {
            #expect([2, 3, 4, 7, 10].map { ShardSpec.shard(of: key, count: $0) } == shards, "\(key)")
        }
    }

    static func keys(_ count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { i in Array("dir\(random.next(below: 50))/IMG_\(i)_\(random.next()).heic".utf8) }
    }

    @Test func shardsPartitionTheInputsExactly() throws {
        let keys = Self.keys(3000, seed: 1)
        for count in [1, 2, 3, 4, 7, 16] {
            let shards = try (1...count).map { try ShardSpec(index: $0, count: count) }
            for key in keys {
                #expect(shards.filter { $0.contains(key) }.count == 1, "\(count) shards")
            }
        }
    }

    @Test func addingOrRemovingFilesMovesNoOtherFile() {
        let before = Self.keys(2000, seed: 2)
        let after = Array(before.dropFirst(300)) + Self.keys(500, seed: 3)   // 300 removed, 500 added
        for count in [2, 5, 9] {
            let assigned = Dictionary(before.map { ($0, ShardSpec.shard(of: $0, count: count)) }, uniquingKeysWith: { a, _ in a })
            for key in after where assigned[key] != nil {
                #expect(ShardSpec.shard(of: key, count: count) == assigned[key], "\(count) shards")
            }
        }
    }

    /// 20,000 keys: Pearson's chi-square of the shard sizes stays under its 0.1% critical value (a fair
    /// split fails this once in a thousand seeds; the seed is fixed), and no shard is 10% off its share.
    @Test func splitIsEven() {
        let keys = Self.keys(20_000, seed: 4)
        let criticalAtOneInAThousand: [Int: Double] = [2: 10.83, 3: 13.82, 4: 16.27, 7: 22.46, 10: 27.88, 16: 37.70]
        for (count, critical) in criticalAtOneInAThousand {
            var sizes = [Int](repeating: 0, count: count)
            for key in keys { sizes[ShardSpec.shard(of: key, count: count) - 1] += 1 }
            let fair = Double(keys.count) / Double(count)
            let chiSquare = sizes.reduce(0.0) { $0 + (Double($1) - fair) * (Double($1) - fair) / fair }
            #expect(chiSquare < critical, "\(count) shards: \(sizes)")
            #expect(sizes.allSatisfy { abs(Double($0) - fair) < 0.1 * fair }, "\(count) shards: \(sizes)")
        }
    }

    // MARK: Keys

    @Test func keyIsRelativeToTheRecursiveRoot() {
        let a = ShardSpec.key(for: InputPath(path: "/builds/1/photos/2024/a.heic", root: "/builds/1/photos"))
        let b = ShardSpec.key(for: InputPath(path: "photos/2024/a.heic", root: "photos"))
        let c = ShardSpec.key(for: InputPath(path: "./photos/2024/a.heic", root: "./photos"))
        #expect(a == Array("2024/a.heic".utf8) && b == a && c == a)
    }

    @Test func listedPathsAreNormalizedNotResolved() {
        #expect(ShardSpec.key(for: InputPath(path: "./photos//a.heic")) == Array("photos/a.heic".utf8))
        #expect(ShardSpec.key(for: InputPath(path: "photos/x/../a.heic")) == Array("photos/a.heic".utf8))
        #expect(ShardSpec.key(for: InputPath(path: "/abs/a.heic")) == Array("/abs/a.heic".utf8))
    }

    @Test func keyKeepsBytesThatAreNotUTF8() {
        let name: [UInt8] = [0x62, 0x61, 0x64, 0xFF, 0x2E, 0x6A, 0x70, 0x67]
        #expect(ShardSpec.key(for: InputPath(path: RawPath.decode(name))) == name)
    }

    // MARK: auto

    static func auto(_ environment: [String: String]) throws -> ShardSpec {
        try parse("auto", environment)
    }

    @Test func gitLabCountsFromOne() throws {
        let shard = try Self.auto(["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3", "PATH": "/bin"])
        #expect(shard.description == "1/3" && shard.origin == "GitLab CI_NODE_INDEX=1 CI_NODE_TOTAL=3")
        #expect(try Self.auto(["CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "3"]).description == "3/3")
        #expect(Self.problem("auto", ["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"])?.contains("counts from 1, so it must be 1...3") == true)
    }

    @Test func gitLabJobWithoutParallelIsTheWholeRun() throws {
        // GitLab sets CI_NODE_TOTAL=1 and no CI_NODE_INDEX when a job has no `parallel:`.
        #expect(try Self.auto(["CI_NODE_TOTAL": "1"]).description == "1/1")
        #expect(Self.problem("auto", ["CI_NODE_TOTAL": "4"])?.contains("not CI_NODE_INDEX") == true)
    }

    @Test func circleCIAndBuildkiteCountFromZero() throws {
        #expect(try Self.auto(["CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "4"]).description == "1/4")
        #expect(try Self.auto(["CIRCLE_NODE_INDEX": "3", "CIRCLE_NODE_TOTAL": "4"]).description == "4/4")
        #expect(Self.problem("auto", ["CIRCLE_NODE_INDEX": "4", "CIRCLE_NODE_TOTAL": "4"])?.contains("must be 0...3") == true)
        #expect(try Self.auto(["BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "5"]).description == "1/5")
        #expect(try Self.auto(["BUILDKITE_PARALLEL_JOB": "4", "BUILDKITE_PARALLEL_JOB_COUNT": "5"]).description == "5/5")
    }

    @Test func kubernetesNeedsTheCountFromTheManifest() throws {
        #expect(try Self.auto(["JOB_COMPLETION_INDEX": "0", "IMGPREP_SHARD_COUNT": "8"]).description == "1/8")
        #expect(try Self.auto(["JOB_COMPLETION_INDEX": "7", "IMGPREP_SHARD_COUNT": "8"]).description == "8/8")
        let message = Self.problem("auto", ["JOB_COMPLETION_INDEX": "2"])
        #expect(message?.contains("IMGPREP_SHARD_COUNT") == true && message?.contains("spec.completions") == true)
        #expect(Self.problem("auto", ["IMGPREP_SHARD_COUNT": "8"])?.contains("not JOB_COMPLETION_INDEX") == true)
    }

    static func slurm(id: Int, min: Int, max: Int, count: Int, step: Int?) -> [String: String] {
        var env = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)",
                   "SLURM_ARRAY_TASK_MAX": "\(max)", "SLURM_ARRAY_TASK_COUNT": "\(count)", "SLURM_JOB_ID": "99"]
        env["SLURM_ARRAY_TASK_STEP"] = step.map(String.init)
        return env
    }

    @Test func slurmArraysOfAnyStartAndStep() throws {
        // --array=0-3
        #expect(try (0...3).map { try Self.auto(Self.slurm(id: $0, min: 0, max: 3, count: 4, step: 1)).description }
                == ["1/4", "2/4", "3/4", "4/4"])
        // --array=1-4
        #expect(try (1...4).map { try Self.auto(Self.slurm(id: $0, min: 1, max: 4, count: 4, step: 1)).index } == [1, 2, 3, 4])
        // --array=0-15:4 runs 0, 4, 8, 12 with COUNT 4 (and MAX 12)
        #expect(try [0, 4, 8, 12].map { try Self.auto(Self.slurm(id: $0, min: 0, max: 12, count: 4, step: 4)).description }
                == ["1/4", "2/4", "3/4", "4/4"])
        // --array=10-20:5%2 (a throttle does not change the indices)
        #expect(try Self.auto(Self.slurm(id: 15, min: 10, max: 20, count: 3, step: 5)).description == "2/3")
    }

    @Test func slurmListsThatAreNotEvenlySpacedAreRefused() {
        // --array=1,3,5,7: Slurm reports STEP 1 (there is no ':'), so 3 would pose as index 2 of 4
        // and shards 2 and 4 would never run.
        for id in [1, 3, 5, 7] {
            #expect(Self.problem("auto", Self.slurm(id: id, min: 1, max: 7, count: 4, step: 1))?.contains("not evenly spaced") == true)
        }
        // --array=0-3,5-8 and --array=0-6:2,7
        #expect(Self.problem("auto", Self.slurm(id: 5, min: 0, max: 8, count: 8, step: 1))?.contains("not evenly spaced") == true)
        #expect(Self.problem("auto", Self.slurm(id: 7, min: 0, max: 7, count: 5, step: 2))?.contains("not evenly spaced") == true)
        // An ID off the array's grid.
        #expect(Self.problem("auto", Self.slurm(id: 5, min: 0, max: 12, count: 4, step: 4))?.contains("not one of the array's indices") == true)
    }

    @Test func slurmWithoutStepMeansStepOne() throws {
        #expect(try Self.auto(Self.slurm(id: 2, min: 1, max: 3, count: 3, step: nil)).description == "2/3")
    }

    @Test func incompleteSlurmVariablesAreNamed() {
        let message = Self.problem("auto", ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0"])
        #expect(message?.contains("SLURM_ARRAY_TASK_MAX") == true && message?.contains("SLURM_ARRAY_TASK_COUNT") == true)
        #expect(message?.contains("SLURM_ARRAY_TASK_ID,") == false)
    }

    @Test func nothingSetNamesEveryVariable() throws {
        let message = try #require(Self.problem("auto", ["PATH": "/bin", "SLURM_JOB_ID": "5"]))
        for name in ["CI_NODE_INDEX", "CI_NODE_TOTAL", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", "BUILDKITE_PARALLEL_JOB",
                     "BUILDKITE_PARALLEL_JOB_COUNT", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "IMGPREP_SHARD_COUNT",
                     "--shard K/N"] {
            #expect(message.contains(name), "\(name) missing from: \(message)")
        }
    }

    @Test func emptyValuesCountAsUnset() {
        #expect(Self.problem("auto", ["CI_NODE_INDEX": "", "CI_NODE_TOTAL": ""])?.contains("found no shard") == true)
    }

    @Test func garbageValuesAreNamed() {
        #expect(Self.problem("auto", ["CIRCLE_NODE_INDEX": "x", "CIRCLE_NODE_TOTAL": "4"]) == "--shard auto: CIRCLE_NODE_INDEX='x' is not a whole number")
        #expect(Self.problem("auto", ["CIRCLE_NODE_INDEX": "-1", "CIRCLE_NODE_TOTAL": "4"])?.contains("not a whole number") == true)
        #expect(Self.problem("auto", ["BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "0"])?.contains("at least 1") == true)
        #expect(Self.problem("auto", Self.slurm(id: 0, min: 0, max: Int.max, count: Int.max, step: Int.max)) != nil)  // no overflow trap
    }

    @Test func engineThatAgreeAreFineEnginesThatDisagreeAreNot() throws {
        // CircleCI exports its pair in every job (0 of 1 without parallelism).
        #expect(try Self.auto(["CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "2",
                               "JOB_COMPLETION_INDEX": "1", "IMGPREP_SHARD_COUNT": "2"]).description == "2/2")
        let message = Self.problem("auto", ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4", "CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "1"])
        #expect(message?.contains("more than one shard") == true && message?.contains("GitLab") == true && message?.contains("CircleCI") == true)
    }

    /// Each engine as it starts N copies: the copies' shards are exactly 1...N, once each.
    @Test func everyEngineCoversEveryShardOnce() throws {
        let n = 6
        let starts: [String: [[String: String]]] = [
            "GitLab": (1...n).map { ["CI_NODE_INDEX": "\($0)", "CI_NODE_TOTAL": "\(n)"] },
            "CircleCI": (0..<n).map { ["CIRCLE_NODE_INDEX": "\($0)", "CIRCLE_NODE_TOTAL": "\(n)"] },
            "Buildkite": (0..<n).map { ["BUILDKITE_PARALLEL_JOB": "\($0)", "BUILDKITE_PARALLEL_JOB_COUNT": "\(n)"] },
            "Kubernetes": (0..<n).map { ["JOB_COMPLETION_INDEX": "\($0)", "IMGPREP_SHARD_COUNT": "\(n)"] },
            "Slurm --array=5-30:5": (0..<n).map { Self.slurm(id: 5 + 5 * $0, min: 5, max: 30, count: n, step: 5) },
        ]
        for (engine, environments) in starts {
            let shards = try environments.map { try Self.auto($0) }
            #expect(shards.map(\.index).sorted() == Array(1...n) && shards.allSatisfy { $0.count == n }, "\(engine)")
        }
    }
}
