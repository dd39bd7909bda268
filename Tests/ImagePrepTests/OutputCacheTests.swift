import Foundation
import Synchronization
import Testing
@testable import ImagePrep

@Suite struct OutputCacheTests {
    static let versions = ["imgprep 0.test", "libjpeg-turbo 2.1.5", "libpng 1.6.39", "libheif 1.15.1"]

    static func key(_ n: Int) -> CacheKey {
        CacheKey(input: Array("input \(n)".utf8), settingsFingerprint: [1, 2, 3], versions: versions)
    }

    /// Deterministic bytes standing in for an output.
    static func output(_ n: Int, size: Int = 20_000) -> [UInt8] {
        var random = SplitMix64(seed: UInt64(n) &+ 1000)
        return (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    static func description(_ n: Int) -> CachedOutput {
        CachedOutput(PreparedImage(bytes: [], format: n.isMultiple(of: 2) ? .jpeg : .png, width: 100 + n, height: 50 + n,
                                   quality: n.isMultiple(of: 2) ? 80 : nil, encodes: 3, passedThrough: false,
                                   warnings: n == 3 ? ["IMG_3.heic: warning: EXIF dropped"] : []))
    }

    static func setModified(_ path: String, seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        _ = RawPath.withCString(path) { utimensat(AT_FDCWD, $0, &times, 0) }
    }

    static func modified(_ path: String) -> Int? {
        RawPath.status(path).map { $0.st_mtim.tv_sec }
    }

    /// Files below `directory` whose names mark them as temporary (ours: `.NAME.imgprep-XXXXXX`).
    static func temporaryFiles(in directory: String) -> [String] {
        (FileManager.default.subpaths(atPath: directory) ?? []).filter { ($0 as NSString).lastPathComponent.hasPrefix(".") }
    }

    // MARK: Keys

    @Test func keyChangesWithEveryPartAndNothingElse() {
        let base = CacheKey(input: [1, 2, 3], settingsFingerprint: [9], versions: ["a", "bc"])
        #expect(base == CacheKey(input: [1, 2, 3], settingsFingerprint: [9], versions: ["a", "bc"]))
        #expect(base == CacheKey(inputDigest: SHA256.hash([1, 2, 3] as [UInt8]), settingsFingerprint: [9], versions: ["a", "bc"]))
        let variants = [
            CacheKey(input: [1, 2, 4], settingsFingerprint: [9], versions: ["a", "bc"]),
            CacheKey(input: [1, 2, 3, 0], settingsFingerprint: [9], versions: ["a", "bc"]),
            CacheKey(input: [1, 2, 3], settingsFingerprint: [8], versions: ["a", "bc"]),
            CacheKey(input: [1, 2, 3], settingsFingerprint: [9], versions: ["ab", "c"]),   // same characters, split differently
            CacheKey(input: [1, 2, 3], settingsFingerprint: [9], versions: ["bc", "a"]),
            CacheKey(input: [1, 2, 3], settingsFingerprint: [9], versions: ["a", "bc", ""]),
            CacheKey(input: [1, 2, 3], settingsFingerprint: [], versions: ["a", "bc"]),
        ]
        #expect(Set(variants + [base]).count == variants.count + 1)
        #expect(base.hex.count == 64 && base.digest.count == 32)
    }

    struct Settings: Codable {
        var quality = 85
        var format = "jpeg"
        var maxDimension: Int? = nil
    }

    @Test func settingsFingerprintIsStableAndSensitive() throws {
        let a = try CacheKey.fingerprint(of: Settings())
        #expect(a == (try CacheKey.fingerprint(of: Settings())))
        #expect(a != (try CacheKey.fingerprint(of: Settings(quality: 86))))
        #expect(a != (try CacheKey.fingerprint(of: Settings(maxDimension: 2048))))
        // Sorted keys: the same values encoded as a dictionary in any order fingerprint alike.
        #expect(try CacheKey.fingerprint(of: ["b": 1, "a": 2]) == CacheKey.fingerprint(of: ["a": 2, "b": 1]))
    }

    // MARK: Hits and misses

    @Test func storedOutputsComeBackExactly() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try OutputCache(directory: directory)
        #expect(cache.lookup(Self.key(1)) == nil)
        for n in 1...4 { try cache.store(Self.key(n), bytes: Self.output(n), output: Self.description(n)) }
        for n in 1...4 {
            let entry = try #require(cache.lookup(Self.key(n)))
            #expect(entry.bytes == Self.output(n) && entry.output == Self.description(n))
        }
        #expect(cache.lookup(Self.key(5)) == nil)
        // An empty output and one with every byte value.
        try cache.store(Self.key(6), bytes: [], output: Self.description(6))
        #expect(cache.lookup(Self.key(6))?.bytes == [])
        let statistics = cache.statistics
        #expect(statistics.hits == 5 && statistics.misses == 2 && statistics.stored == 5 && statistics.damaged == 0)
    }

    @Test func entriesAreFannedOutByKeyAndTagged() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try OutputCache(directory: directory + "/")
        try cache.store(Self.key(1), bytes: Self.output(1), output: Self.description(1))
        let hex = Self.key(1).hex
        #expect(FileManager.default.fileExists(atPath: "\(directory)/\(hex.prefix(2))/\(hex.dropFirst(2))"))
        let tag = try String(contentsOfFile: "\(directory)/CACHEDIR.TAG", encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
        #expect(Self.temporaryFiles(in: directory).isEmpty)
    }

    @Test func preparedImageRoundTrip() {
        let prepared = PreparedImage(bytes: [1, 2], format: .jpeg, width: 640, height: 480, quality: 82, encodes: 4,
                                     probes: 2, passedThrough: false, lossless: true, warnings: ["w"])
        let again = CachedOutput(prepared).preparedImage(bytes: [1, 2])
        #expect(again.width == 640 && again.height == 480 && again.quality == 82 && again.warnings == ["w"]
                && again.format == .jpeg && again.encodes == 0 && again.probes == 0 && again.bytes == [1, 2])
        #expect(again.lossless, "a hit must report the whole result, lossless included")
    }

    @Test func cachedOutputJSONRejectsUnknownFormats() throws {
        let json = try JSONEncoder().encode(Self.description(3))
        #expect(try JSONDecoder().decode(CachedOutput.self, from: json) == Self.description(3))
        let bad = Data(String(decoding: json, as: UTF8.self).replacingOccurrences(of: "\"png\"", with: "\"gif\"").utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CachedOutput.self, from: bad) }
    }

    @Test func outputLargerThanTheCacheIsNotKept() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try OutputCache(directory: directory, maxSize: 10_000)
        try cache.store(Self.key(1), bytes: Self.output(1, size: 20_000), output: Self.description(1))
        #expect(cache.lookup(Self.key(1)) == nil && cache.statistics.stored == 0)
    }

    @Test func directoryComesFromTheOptionThenTheEnvironment() {
        #expect(OutputCache.directory(option: "a", environment: ["IMGPREP_CACHE": "b"]) == "a")
        #expect(OutputCache.directory(option: nil, environment: ["IMGPREP_CACHE": "b"]) == "b")
        #expect(OutputCache.directory(option: nil, environment: ["IMGPREP_CACHE": ""]) == nil)
        #expect(OutputCache.directory(option: nil, environment: [:]) == nil)
    }

    // MARK: Damage

    /// A valid entry file and ways to spoil it. Each spoiled file must be a miss, and be removed.
    @Test func damagedEntriesAreMissesAndAreRemoved() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try OutputCache(directory: directory)
        let key = Self.key(1)
        try cache.store(key, bytes: Self.output(1), output: Self.description(1))
        let path = cache.entryPath(for: key)
        let good = try TestSupport.bytes(path)
        let otherKeysEntry = try CacheEntryCodec.encode(key: Self.key(2), output: Self.description(1), bytes: Self.output(1))

        var spoiled: [(String, [UInt8])] = [
            ("empty", []),
            ("10 bytes", Array(good.prefix(10))),
            ("cut in the header", Array(good.prefix(70))),
            ("cut in the output", Array(good.prefix(good.count / 2))),
            ("last byte missing", Array(good.dropLast())),
            ("a byte too many", good + [0]),
            ("another key's entry", otherKeysEntry),
            ("not an entry", Array(repeating: 0x41, count: good.count)),
        ]
        for offset in [0, 9, 20, 45, 52, 60, good.count / 2, good.count - 1] {
            var flipped = good
            flipped[offset] ^= 0x10
            spoiled.append(("bit flip at \(offset)", flipped))
        }
        for (what, bytes) in spoiled {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(cache.lookup(key) == nil, "\(what)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(what) left in place")
        }
        #expect(cache.statistics.damaged == spoiled.count)
        // The cache still works afterwards.
        try cache.store(key, bytes: Self.output(1), output: Self.description(1))
        #expect(cache.lookup(key)?.bytes == Self.output(1))
    }

    /// Entries whose checksum is right but whose content is not ours (a tampered or foreign cache).
    @Test func validChecksumDoesNotMakeAnUnreadableHeaderAnOutput() throws {
        let key = Self.key(1)
        func sealed(_ body: [UInt8]) -> [UInt8] { body + SHA256.hash(body) }
        let good = try CacheEntryCodec.encode(key: key, output: Self.description(1), bytes: [7, 7, 7])
        let body = Array(good.dropLast(32))
        let headerLength = Int(body[44]) << 24 | Int(body[45]) << 16 | Int(body[46]) << 8 | Int(body[47])
        let header = String(decoding: body[56..<(56 + headerLength)], as: UTF8.self)

        var garbled = body
        for i in 56..<(56 + headerLength) { garbled[i] = 0x7B }  // "{{{{…"
        #expect(CacheEntryCodec.decode(sealed(garbled), key: key) == .failure(.unreadableHeader))

        let negative = header.replacingOccurrences(of: "\"width\":101", with: "\"width\":-11")
        #expect(negative.utf8.count == headerLength && negative != header)
        var negativeWidth = body
        negativeWidth.replaceSubrange(56..<(56 + headerLength), with: Array(negative.utf8))
        #expect(CacheEntryCodec.decode(sealed(negativeWidth), key: key) == .failure(.unreadableHeader))

        var futureVersion = body
        futureVersion[11] = UInt8(CacheEntryCodec.formatVersion + 1)
        #expect(CacheEntryCodec.decode(sealed(futureVersion), key: key) == .failure(.unknownFormatVersion))

        var hugeLength = body
        for i in 48..<56 { hugeLength[i] = 0xFF }
        #expect(CacheEntryCodec.decode(sealed(hugeLength), key: key) == .failure(.sizeMismatch))
        #expect(CacheEntryCodec.decode(good, key: Self.key(2)) == .failure(.wrongKey))
        #expect(CacheEntryCodec.decode(good, key: key) == .success(CacheEntry(bytes: [7, 7, 7], output: Self.description(1))))
    }

    /// Random damage of every kind: decoding never traps, and never returns anything but the original.
    @Test func decodingSurvivesRandomDamage() throws {
        var random = SplitMix64(seed: 31)
        let key = Self.key(1)
        let good = try CacheEntryCodec.encode(key: key, output: Self.description(3), bytes: Self.output(3, size: 300))
        let original = CacheEntry(bytes: Self.output(3, size: 300), output: Self.description(3))
        for round in 0..<3000 {
            var file = good
            for _ in 0...random.next(below: 3) {
                switch random.next(below: 4) {
                case 0 where !file.isEmpty: file[random.next(below: file.count)] ^= UInt8(1 << random.next(below: 8))
                case 1: file = Array(file.prefix(random.next(below: file.count + 1)))
                case 2: file.insert(UInt8(truncatingIfNeeded: random.next()), at: random.next(below: file.count + 1))
                default: if !file.isEmpty { file.remove(at: random.next(below: file.count)) }
                }
            }
            switch CacheEntryCodec.decode(file, key: key) {
            case .success(let entry): #expect(file == good && entry == original, "round \(round)")
            case .failure: #expect(file != good, "round \(round)")
            }
        }
    }

    // MARK: Sharing

    /// As CI restores it: a copy at another path, with fresh mtimes, is all hits with identical bytes.
    @Test(arguments: ["cp -a", "cp -r"])
    func copiedCacheDirectoryStillHits(copy: String) throws {
        let base = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let first = try OutputCache(directory: base + "/job-1/cache")
        for n in 1...6 { try first.store(Self.key(n), bytes: Self.output(n), output: Self.description(n)) }
        let restored = base + "/job-2/elsewhere/cache"
        try FileManager.default.createDirectory(atPath: base + "/job-2/elsewhere", withIntermediateDirectories: true)
        let result = try TestSupport.run("sh", ["-c", "\(copy) \"$0\" \"$1\" && find \"$1\" -exec touch {} +", base + "/job-1/cache", restored])
        #expect(result.status == 0, "\(result.stderr)")
        try FileManager.default.removeItem(atPath: base + "/job-1")
        let second = try OutputCache(directory: restored)
        for n in 1...6 {
            let entry = try #require(second.lookup(Self.key(n)), "entry \(n)")
            #expect(entry.bytes == Self.output(n) && entry.output == Self.description(n))
        }
        #expect(second.statistics.hits == 6 && second.statistics.damaged == 0)
    }

    /// Processes sharing one directory: four threads, each with its own OutputCache as a separate
    /// process would have, store and look up the same keys, while two real processes (sh) play other
    /// imgprep runs: one keeps renaming complete entries over the ones being read (another writer of
    /// the same keys), one keeps deleting entries (another run's eviction). Real imgprep processes
    /// cannot be started from here, but the file-system interleavings are the same: every reader must
    /// see a whole, correct entry or a miss, and nothing is ever taken for damage.
    @Test func concurrentWritersReadersAndEvictorsNeverShowABadOutput() throws {
        let base = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let directory = base + "/cache", staging = base + "/staging"
        let keys = 0..<8
        let outputs = keys.map { Self.output($0, size: 30_000 + 17_000 * $0) }
        // Complete entries for the renamer, made by a cache of their own.
        let stager = try OutputCache(directory: staging)
        for n in keys {
            try stager.store(Self.key(n), bytes: outputs[n], output: Self.description(n))
            let hex = Self.key(n).hex
            try FileManager.default.moveItem(atPath: stager.entryPath(for: Self.key(n)), toPath: "\(staging)/\(hex)")
        }
        for n in keys {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(Self.key(n).hex.prefix(2))", withIntermediateDirectories: true)
        }
        let renamer = Process(), evictor = Process()
        renamer.executableURL = URL(fileURLWithPath: "/bin/sh")
        renamer.arguments = ["-c", """
            i=0
            while [ $i -lt 25 ]; do
              for f in "$1"/????????????????????????????????????????????????????????????????; do
                name=${f##*/}; rest=${name#??}; sub=${name%"$rest"}
                cp "$f" "$2/$sub/.$rest.imgprep-sh" && mv -f "$2/$sub/.$rest.imgprep-sh" "$2/$sub/$rest"
              done
              i=$((i+1))
            done
            """, "sh", staging, directory]
        evictor.executableURL = URL(fileURLWithPath: "/bin/sh")
        evictor.arguments = ["-c", "i=0; while [ $i -lt 250 ]; do rm -f \"$1\"/??/*; i=$((i+1)); done", "sh", directory]
        try renamer.run()
        try evictor.run()

        let problems = Mutex<[String]>([])
        let totals = Mutex(CacheStatistics())
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                let cache = try OutputCache(directory: directory)
                var random = SplitMix64(seed: UInt64(thread))
                var operations = 0
                // At least 300 operations each, more while the other "runs" go on, within reason.
                while operations < 300 || (operations < 1500 && (renamer.isRunning || evictor.isRunning)) {
                    operations += 1
                    let n = random.next(below: keys.count)
                    if let entry = cache.lookup(Self.key(n)) {
                        if entry.bytes != outputs[n] || entry.output != Self.description(n) {
                            problems.withLock { $0.append("thread \(thread) read a wrong output for key \(n)") }
                        }
                    } else {
                        try cache.store(Self.key(n), bytes: outputs[n], output: Self.description(n))
                    }
                }
                let statistics = cache.statistics
                totals.withLock { $0.hits += statistics.hits; $0.misses += statistics.misses; $0.damaged += statistics.damaged }
            } catch {
                problems.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        renamer.waitUntilExit()
        evictor.waitUntilExit()
        #expect(renamer.terminationStatus == 0 && evictor.terminationStatus == 0)
        #expect(problems.withLock { $0 } == [])
        let statistics = totals.withLock { $0 }
        #expect(statistics.damaged == 0)
        #expect(statistics.hits > 0 && statistics.misses > 0, "the runs did not interleave: \(statistics)")
        print("concurrent cache test: \(statistics.hits) hits, \(statistics.misses) misses")
        #expect(Self.temporaryFiles(in: directory).isEmpty)
        // Whatever is left is whole.
        let check = try OutputCache(directory: directory)
        for n in keys { _ = check.lookup(Self.key(n)) }
        #expect(check.statistics.damaged == 0)
    }

    // MARK: Size limit

    /// Six entries from earlier runs (mtimes an hour apart in 2020), one of them used by this run:
    /// a store that takes the cache over its limit evicts the least recently used first, down to 90%.
    @Test func evictionTakesTheLeastRecentlyUsedFirst() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let earlier = try OutputCache(directory: directory)
        for n in 0..<6 { try earlier.store(Self.key(n), bytes: Self.output(n, size: 100_000), output: Self.description(n)) }
        for n in 0..<6 { Self.setModified(earlier.entryPath(for: Self.key(n)), seconds: 1_600_000_000 + 3600 * n) }

        let cache = try OutputCache(directory: directory, maxSize: 450_000)
        #expect(cache.lookup(Self.key(1)) != nil)   // used now: the most recent
        #expect((Self.modified(cache.entryPath(for: Self.key(1))) ?? 0) > 1_700_000_000)
        try cache.store(Self.key(6), bytes: Self.output(6, size: 100_000), output: Self.description(6))
        // 7 entries of about 100.3 KB: over 450 KB; evicting 0, 2, 3 (oldest first) brings it under 405 KB.
        let kept = (0...6).filter { FileManager.default.fileExists(atPath: cache.entryPath(for: Self.key($0))) }
        #expect(kept == [1, 4, 5, 6])
        #expect(cache.statistics.evicted == 3 && cache.statistics.trims == 1)
    }

    /// A limit smaller than one run's outputs: plain LRU would evict each entry just before the next
    /// run reads it (0 hits forever). The run's own entries go last, those it found last of all, so a
    /// fixed part of the run stays and hits on every later run.
    @Test func limitSmallerThanARunKeepsAStablePartInsteadOfThrashing() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func ageEverything() {
            for n in 0..<10 { Self.setModified(OutputCacheTests.entryPath(directory, n), seconds: 1_600_000_000 + n) }
        }
        var hitsPerRun: [[Int]] = []
        var evictedOwn = 0
        for _ in 0..<5 {
            let cache = try OutputCache(directory: directory, maxSize: 450_000)
            var hits: [Int] = []
            for n in 0..<10 {
                if cache.lookup(Self.key(n)) != nil {
                    hits.append(n)
                } else {
                    try cache.store(Self.key(n), bytes: Self.output(n, size: 100_000), output: Self.description(n))
                }
            }
            evictedOwn += cache.statistics.evictedFromThisRun
            hitsPerRun.append(hits)
            ageEverything()  // the next run starts later
        }
        // Run 1 starts empty; from run 2 on the hits settle on a part of the run (at once, unless run
        // 1's stores tied on the coarse file clock) and stay.
        #expect(hitsPerRun[0] == [])
        #expect(hitsPerRun[1].count >= 2 && hitsPerRun[3].count >= 3 && hitsPerRun[4] == hitsPerRun[3], "\(hitsPerRun)")
        #expect(evictedOwn > 0)
        let total = (0..<10).compactMap { RawPath.status(Self.entryPath(directory, $0)).map { Int($0.st_size) } }.reduce(0, +)
        #expect(total <= 450_000)
    }

    /// File times come from a coarse clock, so this run's hits and stores can carry the same mtime;
    /// the entries this instance found must still outlive the ones it did not.
    @Test func entriesFoundThisRunOutliveOthersWithTheSameTime() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let setup = try OutputCache(directory: directory)
        for n in 0..<5 { try setup.store(Self.key(n), bytes: Self.output(n, size: 100_000), output: Self.description(n)) }
        let cache = try OutputCache(directory: directory, maxSize: 350_000)
        #expect(cache.lookup(Self.key(3)) != nil && cache.lookup(Self.key(1)) != nil)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for n in 0..<5 { Self.setModified(cache.entryPath(for: Self.key(n)), seconds: now.tv_sec + 60) }  // one time for all
        let report = cache.trim()
        let kept = (0..<5).filter { FileManager.default.fileExists(atPath: cache.entryPath(for: Self.key($0))) }
        #expect(report.evicted == 2 && report.evictedFromThisRun == 2)
        #expect(kept.count == 3 && kept.contains(1) && kept.contains(3), "\(kept)")
    }

    static func entryPath(_ directory: String, _ n: Int) -> String {
        let hex = key(n).hex
        return "\(directory)/\(hex.prefix(2))/\(hex.dropFirst(2))"
    }

    /// The directory is scanned on the first store, then only when stores cross the limit.
    @Test func storesDoNotRescanTheDirectory() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let roomy = try OutputCache(directory: directory)
        for n in 0..<40 { try roomy.store(Self.key(n), bytes: Self.output(n, size: 5_000), output: Self.description(n)) }
        #expect(roomy.statistics.trims == 1)

        let tight = try OutputCache(directory: directory, maxSize: 100_000)
        for n in 40..<100 { try tight.store(Self.key(n), bytes: Self.output(n, size: 5_000), output: Self.description(n)) }
        // 60 stores of ~5.4 KB; after a trim the cache is at 90%, so crossing again takes about
        // 10 KB / 5.4 KB = 2 stores: at most about 30 scans, never one per store.
        #expect(tight.statistics.trims >= 2 && tight.statistics.trims <= 31, "\(tight.statistics)")
        let total = (FileManager.default.subpaths(atPath: directory) ?? [])
            .filter { $0.count == 65 }
            .compactMap { RawPath.status(directory + "/" + $0).map { Int($0.st_size) } }.reduce(0, +)
        #expect(total <= 100_000)
    }

    @Test func trimRemovesAbandonedTemporaryFilesAndNothingElseForeign() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try OutputCache(directory: directory)
        try cache.store(Self.key(1), bytes: Self.output(1), output: Self.description(1))
        let sub = "\(directory)/\(Self.key(1).hex.prefix(2))"
        let abandoned = "\(sub)/.\(Self.key(9).hex.dropFirst(2)).imgprep-Ab12Cd", fresh = "\(sub)/.other.imgprep-Zz99Yy"
        for path in [abandoned, fresh, "\(sub)/README", "\(directory)/notes.txt"] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data([1])))
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        Self.setModified(abandoned, seconds: now.tv_sec - 7200)
        let report = cache.trim()
        #expect(report.abandonedTemporaryFiles == 1 && report.evicted == 0)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        for path in [fresh, "\(sub)/README", "\(directory)/notes.txt", cache.entryPath(for: Self.key(1))] {
            #expect(FileManager.default.fileExists(atPath: path), "\(path)")
        }
    }

    /// Every build leaves a note in `executables/`: a trim keeps those used in this run and the
    /// `executableNotesKept` used most recently before it, and removes the rest (and abandoned temporary files).
    @Test func trimKeepsTheNotesOfRecentBuildsOnly() throws {
        let directory = try TestSupport.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try OutputCache(directory: directory)
        let notes = "\(directory)/executables"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // Twenty builds used an hour apart, long ago; one used in this run; a writer that died.
        let old = (0..<20).map { "\(notes)/1-\(100 + $0)-5-6.0-7.0" }
        for (index, path) in old.enumerated() {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x61, count: 64)))
            Self.setModified(path, seconds: now.tv_sec - 86_400 - 3600 * (20 - index))
        }
        let current = "\(notes)/1-999-5-6.0-7.0", abandoned = "\(notes)/.1-998-5-6.0-7.0.imgprep-Ab12Cd"
        #expect(FileManager.default.createFile(atPath: current, contents: Data(repeating: 0x62, count: 64)))
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data([1])))
        Self.setModified(abandoned, seconds: now.tv_sec - 7200)

        let report = cache.trim()
        let kept = Set((try FileManager.default.contentsOfDirectory(atPath: notes)).map { "\(notes)/\($0)" })
        #expect(kept == Set(old.suffix(CacheTrimming.executableNotesKept) + [current]), "\(kept.sorted())")
        #expect(report.executableNotesRemoved == 20 - CacheTrimming.executableNotesKept)
        #expect(report.abandonedTemporaryFiles == 1)
        #expect(cache.trim().executableNotesRemoved == 0, "a second trim finds nothing more to remove")
    }
}
