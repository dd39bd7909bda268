import Foundation
import Testing
@testable import ImagePrep

/// Paths are bytes and files are files: a list that cannot be read fails, one file named two ways is
/// one job, folders that differ only in Unicode normalisation are two folders, `--in-place` on a link
/// replaces its target, and `-o` that cannot be what it looks like is a usage error.
@Suite struct PathsAndListsTests {
    static let fixture = TestSupport.fixtures.appendingPathComponent("heic/10bit-p3.heic").path

    static func imgprep(_ arguments: [String], cwd: URL? = nil) throws -> TestSupport.Run {
        try TestSupport.imgprep(arguments, cwd: cwd, environment: TestSupport.environment())
    }

    // MARK: lists

    @Test func aDirectoryAsTheListIsAUsageError() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Self.imgprep(["convert", "--files-from", dir.path, "-o", dir.appendingPathComponent("out").path])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("cannot read --files-from") && run.stderr.contains("a directory"), "\(run.stderr)")
        #expect(!run.stderr.contains("0 files"), "\(run.stderr)")
    }

    /// A read error after the list was opened (here a directory's descriptor: read(2) says EISDIR) is
    /// a failure that names the list, not the end of a short list.
    @Test func aListThatCannotBeReadToItsEndFails() async throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fd = open(dir.path, O_RDONLY | O_DIRECTORY)
        #expect(fd >= 0)
        defer { close(fd) }
        let planner = JobPlanner(format: .jpeg, outputDirectory: "out", inPlace: false)
        let source = JobSource(arguments: [], list: JobSource.List(descriptor: fd, nullSeparated: false, name: "paths.txt"),
                               recursive: false, excluding: nil, planner: planner)
        var jobs: [BatchJob] = []
        while let job = await source.next() { jobs.append(job) }
        #expect(jobs.count == 1)
        #expect(jobs.first?.input == "paths.txt")
        #expect(jobs.first?.problem?.description.contains("cannot read the list of paths to its end") == true, "\(jobs)")
    }

    // MARK: one file, one job; two folders, two folders

    @Test func oneFileNamedTwoWaysIsOneJob() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("s"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: dir.appendingPathComponent("s/x.heic").path)
        let run = try Self.imgprep(["convert", "--json", "s/x.heic", dir.appendingPathComponent("s/x.heic").path], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let files = try BatchTests.jsonLines(run.stdout).filter { $0["summary"] == nil }
        #expect(files.count == 1, "\(files)")
        #expect(files.first?["status"] as? String == "ok")
    }

    /// `-o NAME.jpg` names one output: the same file named two ways, or through a symbolic link, is one
    /// input and writes it; two files are still a usage error.
    @Test func oneFileNamedTwoWaysFitsOneOutputFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: dir.appendingPathComponent("a.heic").path)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.heic").path, withDestinationPath: "a.heic")
        let run = try Self.imgprep(["convert", "a.heic", "./a.heic", "link.heic", "-o", "one.jpg"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("one.jpg").path))
        #expect(run.stderr.contains("1 converted"), "\(run.stderr)")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: dir.appendingPathComponent("b.heic").path)
        let two = try Self.imgprep(["convert", "a.heic", "b.heic", "./a.heic", "-o", "two.jpg"], cwd: dir)
        #expect(two.status == 2 && two.stderr.contains("2 inputs were given"), "\(two.stderr)")
    }

    @Test func foldersThatDifferOnlyInNormalisationAreBothConverted() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        for folder in [composed, decomposed] {
            let path = dir.path + "/in/" + folder
            #expect(RawPath.withCString(dir.path + "/in") { mkdir($0, 0o755) } == 0 || errno == EEXIST)
            #expect(RawPath.withCString(path) { mkdir($0, 0o755) } == 0)
            try Data(contentsOf: URL(fileURLWithPath: Self.fixture)).write(to: URL(fileURLWithPath: path + "/x.heic"))
        }
        #expect(RawPath.names(in: dir.path + "/in")?.count == 2, "the file system merged the names")
        let out = dir.path + "/out"
        let run = try Self.imgprep(["convert", "-r", dir.path + "/in", "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(RawPath.status(out + "/" + composed + "/x.jpg") != nil, "\(run.stderr)")
        #expect(RawPath.status(out + "/" + decomposed + "/x.jpg") != nil, "\(run.stderr)")
        // Named one by one, as a list would: still two inputs and two outputs.
        let listed = try Self.imgprep(["convert", "--json", dir.path + "/in/" + composed + "/x.heic",
                                       dir.path + "/in/" + decomposed + "/x.heic", "-o", dir.path + "/flat", "--to", "png"])
        let files = try BatchTests.jsonLines(listed.stdout).filter { $0["summary"] == nil }
        #expect(files.count == 2, "\(listed.stdout)")
    }

    // MARK: --in-place on a link

    @Test func inPlaceOnALinkCompressesTheTargetAndKeepsTheLink() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("target.jpg").path, link = dir.appendingPathComponent("link.jpg").path
        let picture = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path   // 320x240
        let made = try Self.imgprep(["convert", picture, "-q", "100", "-o", target])
        #expect(made.status == 0, "\(made.stderr)")
        let before = try TestSupport.bytes(target)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.jpg")
        let budget = before.count * 6 / 10
        let run = try Self.imgprep(["compress", "--in-place", "--max-bytes", "\(budget)", link])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.jpg", "the link was replaced")
        let after = try TestSupport.bytes(target)
        #expect(after != before && after.count <= budget, "the target was not compressed: \(before.count) -> \(after.count)")
        #expect(BatchTests.listing(dir.path).filter { $0.contains(".imgprep-") }.isEmpty)
    }

    static let haveStrace = TestSupport.toolExists("strace")

    /// After a power cut an in-place file must hold the old bytes or the new, never nothing: the new
    /// file is flushed before it is renamed over the old, and the folder after. Seen with strace.
    @Test(.enabled(if: haveStrace, "needs strace"))
    func inPlaceFlushesTheFileBeforeTheRenameAndTheFolderAfter() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("photo.jpg").path, log = dir.appendingPathComponent("trace").path
        let picture = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        let made = try Self.imgprep(["convert", picture, "-q", "100", "-o", target])
        #expect(made.status == 0, "\(made.stderr)")
        let size = try TestSupport.bytes(target).count
        let run = try TestSupport.run("strace", ["-f", "-qq", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", "-o", log,
                                                 TestSupport.binary, "compress", "--in-place", "--max-bytes", "\(size * 6 / 10)", target],
                                      environment: TestSupport.environment())
        #expect(run.status == 0, "\(run.stderr)")
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let rename = try #require(calls.firstIndex { $0.contains("rename") && $0.contains(".photo.jpg.imgprep-") }, "\(calls)")
        #expect(calls[..<rename].contains { $0.contains("fsync(") && $0.hasSuffix("= 0") }, "no flush before the rename: \(calls)")
        #expect(calls[(rename + 1)...].contains { $0.contains("fsync(") && $0.hasSuffix("= 0") }, "no flush of the folder: \(calls)")
    }

    // MARK: -o

    @Test func anOutputNamedWithAnExtensionImgprepDoesNotWriteIsAUsageError() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Self.imgprep(["convert", Self.fixture, "-o", "cover.gif"], cwd: dir)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("-o cover.gif names a .gif file, which imgprep does not write"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cover.gif").path))
        let asDirectory = try Self.imgprep(["convert", Self.fixture, "-o", "cover.gif/"], cwd: dir)
        #expect(asDirectory.status == 0, "a trailing slash says it is a directory: \(asDirectory.stderr)")
    }

    @Test(arguments: ["afile", "afile/"])
    func anExistingFileAsTheOutputDirectoryIsAUsageError(_ output: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(FileManager.default.createFile(atPath: dir.appendingPathComponent("afile").path, contents: Data("x".utf8)))
        let run = try Self.imgprep(["convert", Self.fixture, "-o", output], cwd: dir)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("-o \(output) is an existing file, not a directory"), "\(run.stderr)")
    }
}
