import Foundation
import Testing
@testable import ImagePrep

/// The output cache serves only what this very build would write, reports hits as fully as misses,
/// and says so when it cannot be used, instead of caching nothing in silence.
@Suite struct CacheTrustTests {
    static let fixture = TestSupport.fixtures.appendingPathComponent("heic/10bit-p3.heic").path

    static func convert(_ arguments: [String], binary: String = TestSupport.binary) throws -> TestSupport.Run {
        try TestSupport.run(binary, ["convert"] + arguments, environment: TestSupport.environment())
    }

    static func cachedFlags(_ run: TestSupport.Run) throws -> [Bool] {
        try BatchTests.jsonLines(run.stdout).filter { $0["summary"] == nil }.map { $0["cached"] as? Bool ?? false }
    }

    @Test func anotherBuildOfTheSameVersionDoesNotReuseEntries() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path, out = dir.appendingPathComponent("out").path
        // Two copies of the tool that differ in one byte of text no output depends on.
        var bytes = try TestSupport.bytes(TestSupport.binary)
        let marker = Array("bford.info/cachedir".utf8)
        let at = try #require((0...(bytes.count - marker.count)).first { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        let original = dir.appendingPathComponent("imgprep-a").path, changed = dir.appendingPathComponent("imgprep-b").path
        try Data(bytes).write(to: URL(fileURLWithPath: original))
        bytes[at] = UInt8(ascii: "c")
        try Data(bytes).write(to: URL(fileURLWithPath: changed))
        chmod(original, 0o755)
        chmod(changed, 0o755)

        let arguments = ["--cache", cache, "--json", "-o", out, Self.fixture]
        let filled = try Self.convert(arguments, binary: original)
        #expect(filled.status == 0, "\(filled.stderr)")
        let again = try Self.convert(arguments, binary: original)
        #expect(try Self.cachedFlags(again) == [true], "the same build should hit: \(again.stdout)")
        let other = try Self.convert(arguments, binary: changed)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try Self.cachedFlags(other) == [false], "another build reused an entry: \(other.stdout)")
    }

    /// --max-input-size only decides whether a file is read: an output made under one limit is the
    /// same under another, so the cache serves it.
    @Test func theInputSizeLimitIsNotPartOfTheKey() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path
        func run(_ limit: String, _ out: String) throws -> TestSupport.Run {
            let run = try Self.convert(["--cache", cache, "--json", "--max-input-size", limit,
                                        "-o", dir.appendingPathComponent(out).path, Self.fixture])
            #expect(run.status == 0, "\(run.stderr)")
            return run
        }
        #expect(try Self.cachedFlags(run("1GB", "first")) == [false])
        let second = try run("50MB", "second")
        #expect(try Self.cachedFlags(second) == [true], "\(second.stdout)")
    }

    @Test func theCacheKeyNamesTheDecoderPluginsAndZlib() {
        let versions = CodecVersions.all.joined(separator: "\n")
        #expect(versions.contains("decoder libde265") && versions.contains("zlib 1."), "\(versions)")
        #expect(versions.contains("dav1d ") && versions.contains("libaom "), "\(versions)")
    }

    /// giflib has no version call: the key names the version in the headers imgprep was built with
    /// (read here from gif_lib.h itself) and the library file loaded.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/include/gif_lib.h"), "no /usr/include/gif_lib.h (libgif-dev)"))
    func theCacheKeyNamesGiflib() throws {
        let header = try String(contentsOfFile: "/usr/include/gif_lib.h", encoding: .utf8)
        func macro(_ name: String) -> String? {
            header.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }.map { String($0.split(separator: " ").last ?? "") }
        }
        let version = try ["GIFLIB_MAJOR", "GIFLIB_MINOR", "GIFLIB_RELEASE"].map { try #require(macro($0), "no \($0) in gif_lib.h") }
        let line = CodecVersions.all.first { $0.hasPrefix("giflib ") }
        #expect(line?.hasPrefix("giflib \(version.joined(separator: ".")) (headers; libgif.so") == true, "\(CodecVersions.all)")
        let run = try TestSupport.imgprep(["--version"])
        #expect(run.stdout.split(separator: "\n").contains { $0.hasPrefix("giflib \(version.joined(separator: "."))") }, "\(run.stdout)")
    }

    /// A run trims the build notes in `executables/` to the recent ones and keeps its own.
    @Test func aRunKeepsItsOwnBuildNoteAndTrimsOldOnes() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path, notes = "\(cache)/executables"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for index in 0..<20 {
            let path = "\(notes)/1-\(100 + index)-5-6.0-7.0"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x61, count: 64)))
            OutputCacheTests.setModified(path, seconds: now.tv_sec - 86_400 - 60 * index)
        }
        let run = try Self.convert(["--cache", cache, "-o", dir.appendingPathComponent("out").path, Self.fixture])
        #expect(run.status == 0, "\(run.stderr)")
        var info = stat()
        #expect(stat(TestSupport.binary, &info) == 0)
        let own = "\(info.st_dev)-\(info.st_ino)-\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
        let kept = try FileManager.default.contentsOfDirectory(atPath: notes)
        #expect(kept.contains(own), "this build's note is missing: \(kept.sorted())")
        #expect(kept.count == CacheTrimming.executableNotesKept + 1, "\(kept.sorted())")
    }

    @Test(.enabled(if: LosslessJPEGTests.haveTools, "needs jpegtran (libjpeg-turbo-progs) and exiftool"))
    func aHitReportsTheWholeResult() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try LosslessJPEGTests.turnedJPEG(in: dir, orientation: 6)
        let cache = dir.appendingPathComponent("cache").path
        func line(_ out: String) throws -> [String: Any] {
            let run = try Self.convert(["--cache", cache, "--json", "-o", dir.appendingPathComponent(out).path, source])
            #expect(run.status == 0, "\(run.stderr)")
            return try #require(try BatchTests.jsonLines(run.stdout).first)
        }
        let made = try line("first"), hit = try line("second")
        #expect(made["lossless"] as? Bool == true && made["cached"] == nil, "\(made)")
        #expect(hit["cached"] as? Bool == true, "\(hit)")
        for (field, value) in made where !["cached", "encodes", "ms", "output", "probes"].contains(field) {
            #expect("\(hit[field] ?? "missing")" == "\(value)", "\(field) differs on a hit: \(hit)")
        }
    }

    @Test func aCacheThatIsAFileIsAUsageError() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("cache").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let out = dir.appendingPathComponent("out").path
        let run = try Self.convert(["--cache", file, "-o", out, Self.fixture])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("cannot use the cache directory") && run.stderr.contains("not a directory"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "work was done before the error")
    }

    /// /proc is a directory no one, root included, can create files in: a read-only cache.
    @Test func aCacheThatCannotBeWrittenIsAUsageError() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let run = try Self.convert(["--cache", "/proc", "-o", out, Self.fixture])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("cannot write in /proc"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Every entry folder taken by a plain file: the cache opens, but no output can be stored, as when
    /// the disk fills up during a run. The outputs are still written, and the run says the cache failed.
    @Test func storesThatFailMidRunEndInAWarning() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path, out = dir.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        for byte in 0..<256 {
            let name = String(byte, radix: 16)
            _ = FileManager.default.createFile(atPath: "\(cache)/\(name.count == 1 ? "0" + name : name)", contents: Data())
        }
        let run = try Self.convert(["--cache", cache, "-o", out, Self.fixture])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(out)/10bit-p3.jpg"))
        let warnings = run.stderr.split(separator: "\n").filter { $0.contains("warning: cannot store outputs in the cache") }
        #expect(warnings.count == 1, "\(run.stderr)")
    }
}
