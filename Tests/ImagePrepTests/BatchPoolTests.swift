import Foundation
import Synchronization
import Testing
@testable import ImagePrep

/// The scheduler without images: BatchRunner with mock work, the memory gate, the budget detection
/// and the header probes that feed the estimates.
struct BatchPoolTests {
    /// Records how many jobs run at once and the largest total "memory" admitted together.
    final class Recorder: Sendable {
        private let state = Mutex((running: 0, mostRunning: 0, admitted: 0, mostAdmitted: 0, left: 0))
        func enter(_ bytes: Int) {
            state.withLock { s in
                s.running += 1; s.mostRunning = max(s.mostRunning, s.running)
                s.admitted += bytes; s.mostAdmitted = max(s.mostAdmitted, s.admitted)
            }
        }
        func leave(_ bytes: Int) { state.withLock { $0.running -= 1; $0.admitted -= bytes; $0.left += 1 } }
        var running: Int { state.withLock { $0.running } }
        var left: Int { state.withLock { $0.left } }
        var admitted: Int { state.withLock { $0.admitted } }
        var mostRunning: Int { state.withLock { $0.mostRunning } }
        var mostAdmitted: Int { state.withLock { $0.mostAdmitted } }
    }

    /// Holds mock jobs until the test lets them go, one `give` each (first come, first let go), so
    /// which jobs overlap is the test's choice, not the scheduler's timing.
    final class Permits: Sendable {
        private let state = Mutex((permits: 0, waiting: [CheckedContinuation<Void, Never>]()))
        func take() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s -> Bool in
                    guard s.permits == 0 else { s.permits -= 1; return true }
                    s.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
        func give() {
            let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard !s.waiting.isEmpty else { s.permits += 1; return nil }
                return s.waiting.removeFirst()
            }
            next?.resume()
        }
    }

    static func jobs(_ count: Int) -> JobSource {
        JobSource((0..<count).map { BatchJob(input: "in\($0)", output: "out\($0)") })
    }

    /// Jobs end one at a time, each only once the runner has had every chance to start more: each time
    /// exactly `limit` run (fewer at the end), so the runner both refills and never overfills.
    @Test func theRunnerNeverRunsMoreThanItsLimit() async {
        let recorder = Recorder(), permits = Permits()
        let run = Task {
            await BatchRunner.run(Self.jobs(40), limit: 3, cancellation: CancellationFlag(), work: { job, _ in
                recorder.enter(0)
                await permits.take()
                recorder.leave(0)
                return FileOutcome(job: job, status: .ok)
            }, onOutcome: { _ in })
        }
        for ended in 0..<40 {
            let settled = await TestSupport.waitUntil { recorder.left == ended && recorder.running == min(3, 40 - ended) }
            #expect(settled, "after \(ended) jobs ended, \(recorder.running) run")
            permits.give()
        }
        let summary = await run.value
        #expect(summary.converted == 40)
        #expect(recorder.mostRunning == 3)
    }

    @Test func failFastStartsNothingAfterTheFirstFailure() async {
        let started = Mutex(0)
        let summary = await BatchRunner.run(Self.jobs(50), limit: 1, failFast: true, cancellation: CancellationFlag(), work: { job, _ in
            started.withLock { $0 += 1 }
            return job.input == "in3" ? FileOutcome(job: job, failure: ImagePrepError(.corrupt, "bad")) : FileOutcome(job: job, status: .ok)
        }, onOutcome: { _ in })
        #expect(summary.failed == 1)
        #expect(summary.converted == 3)
        #expect(started.withLock { $0 } == 4)
    }

    /// Files end one at a time, each once every other file is either running or waiting at the gate (and
    /// the gate holds exactly what the running ones were admitted with).
    /// Any two sizes fit the budget together (at most 499 + 499) and three may not, so small files run
    /// side by side and the budget is what stops more.
    @Test func theGateKeepsTheEstimatesInFlightWithinTheBudget() async {
        let gate = MemoryGate(budget: 1000)
        let recorder = Recorder(), permits = Permits()
        var generator = SplitMix64(seed: 3)
        let sizes = (0..<60).map { _ in 50 + generator.next(below: 450) }
        let files = Task {
            await withTaskGroup(of: Void.self) { group in
                for size in sizes {
                    group.addTask {
                        await gate.admit(size)
                        recorder.enter(size)
                        await permits.take()
                        recorder.leave(size)
                        gate.release(size)
                    }
                }
            }
        }
        for ended in 0..<sizes.count {
            let settled = await TestSupport.waitUntil {
                recorder.left == ended && recorder.running + gate.waiting == sizes.count - ended && gate.used == recorder.admitted
            }
            #expect(settled, "after \(ended) files ended: \(recorder.running) running, \(gate.waiting) waiting")
            permits.give()
        }
        await files.value
        #expect(recorder.mostAdmitted <= 1000)
        #expect(recorder.mostRunning > 1, "the gate should let small files run together")
        #expect(gate.used == 0)
    }

    @Test func aFileBiggerThanTheWholeBudgetRunsAlone() async {
        let gate = MemoryGate(budget: 100)
        await gate.admit(5000)
        let second = Task { await gate.admit(10) }
        #expect(await TestSupport.waitUntil { gate.waiting == 1 }, "the small file never reached the gate")
        #expect(gate.used == 5000, "a small file must wait while the huge one runs")
        gate.release(5000)
        await second.value
        #expect(gate.used == 10)
        gate.release(10)
    }

    @Test func openingTheGateReleasesEveryWaiter() async {
        let gate = MemoryGate(budget: 10)
        await gate.admit(10)
        let waiters = (0..<5).map { _ in Task { await gate.admit(10) } }
        #expect(await TestSupport.waitUntil { gate.waiting == 5 }, "\(gate.waiting) of 5 waiting")
        #expect(gate.used == 10)
        gate.openAll()
        for waiter in waiters { await waiter.value }
        #expect(gate.used == 60)
    }

    // MARK: what the machine allows

    /// A fake /proc and /sys under a temporary root.
    static func fakeRoot(meminfoKB: Int, cgroup: String, files: [String: String]) throws -> URL {
        let root = try TestSupport.temporaryDirectory()
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(String(path.dropFirst()))
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("/proc/meminfo", "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   \(meminfoKB) kB\n")
        try write("/proc/self/cgroup", cgroup)
        for (path, text) in files { try write(path, text) }
        return root
    }

    @Test func noCgroupLimitMeansMemAvailable() throws {
        let root = try Self.fakeRoot(meminfoKB: 8_000_000, cgroup: "0::/user.slice\n", files: ["/sys/fs/cgroup/user.slice/memory.max": "max\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(MemoryBudget.available(root: root.path) == 8_000_000 * 1024)
    }

    @Test func aCgroupV2LimitOnAnAncestorCounts() throws {
        let root = try Self.fakeRoot(meminfoKB: 64_000_000, cgroup: "0::/ci/job/step\n", files: [
            "/sys/fs/cgroup/ci/job/step/memory.max": "max\n",
            "/sys/fs/cgroup/ci/job/memory.max": "7516192768\n",
            "/sys/fs/cgroup/ci/job/memory.current": "1073741824\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(MemoryBudget.available(root: root.path) == 7_516_192_768 - 1_073_741_824)
    }

    @Test func aCgroupV1LimitCountsAndItsUnlimitedValueDoesNot() throws {
        let limited = try Self.fakeRoot(meminfoKB: 64_000_000, cgroup: "4:memory:/docker/abc\n0::/\n", files: [
            "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "4294967296\n",
            "/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": "294967296\n",
        ])
        let unlimited = try Self.fakeRoot(meminfoKB: 2_000_000, cgroup: "4:memory:/\n", files: [
            "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        ])
        defer {
            try? FileManager.default.removeItem(at: limited)
            try? FileManager.default.removeItem(at: unlimited)
        }
        #expect(MemoryBudget.available(root: limited.path) == 4_000_000_000)
        #expect(MemoryBudget.available(root: unlimited.path) == 2_000_000 * 1024)
    }

    // MARK: header probes (what the parent reads without any codec library)

    @Test(arguments: ["10bit", "alpha", "gps-p3", "gray", "orientation-6"])
    func probesAgreeWithTheDecodersOnFixtures(_ name: String) throws {
        let file = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("heic/\(name).heic").path)
        let format = try FormatSniffer.sniff(file).get()
        let probed = try #require(HeaderProbe.header(of: file, format: format))
        let decoded = try DecoderRegistry.decoder(for: format).header(of: file)
        // libheif reports the size with irot applied; ispe is the stored size.
        #expect(Set([probed.width, probed.height]) == Set([decoded.width, decoded.height]))
        #expect(probed.hasAlpha == (name == "alpha"))
    }

    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus: corpus probes skipped"))
    func probesAgreeWithTheDecodersOnTheCorpus() throws {
        let corpus = try #require(TestSupport.corpus)
        var compared = 0
        for directory in ["heic", "jpeg", "avif"] {
            let folder = corpus.appendingPathComponent(directory)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                let file = try TestSupport.bytes(folder.appendingPathComponent(name).path)
                guard case .success(let format) = FormatSniffer.sniff(file),
                      let decoded = try? DecoderRegistry.decoder(for: format).header(of: file) else { continue }
                // ispe is the size before clap crops it: the probe may say more pixels, never fewer.
                let probed = try #require(HeaderProbe.header(of: file, format: format), "\(directory)/\(name)")
                #expect(probed.pixelCount >= decoded.pixelCount && probed.pixelCount <= 4 * decoded.pixelCount + 65536,
                        "\(directory)/\(name): probed \(probed.width)x\(probed.height), decoded \(decoded.width)x\(decoded.height)")
                compared += 1
            }
        }
        #expect(compared > 50)
    }
}
