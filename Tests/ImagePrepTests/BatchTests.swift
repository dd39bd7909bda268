import Foundation
import Testing
@testable import ImagePrep

/// The batch side of `imgprep convert` / `compress` end to end with the real binary: where inputs come
/// from (-0, --files-from, piped stdin, -r), how outputs are named and collide, skip/update/dry-run,
/// --json, exit codes, interruption, --fail-fast, --preserve-mtime, --in-place and make -j.
@Suite(.serialized) struct BatchTests {
    let heic = TestSupport.fixtures.appendingPathComponent("heic").path
    let bad = TestSupport.fixtures.appendingPathComponent("bad").path
    var gray: String { "\(heic)/gray.heic" }
    var p3: String { "\(heic)/gps-p3.heic" }

    // MARK: helpers

    struct FileStat { var inode: UInt64; var mode: UInt32; var mtimeSeconds: Int; var mtimeNanos: Int; var size: Int }

    static func fileStat(_ path: String) throws -> FileStat {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return FileStat(inode: UInt64(info.st_ino), mode: UInt32(info.st_mode & 0o7777),
                        mtimeSeconds: Int(info.st_mtim.tv_sec), mtimeNanos: Int(info.st_mtim.tv_nsec), size: Int(info.st_size))
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    static func copy(_ source: String, to destination: String) throws {
        let parent = (destination as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    static func setMtime(_ path: String, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    /// Every stdout line must be a JSON object (parsed, not grepped); the output must end with a newline.
    static func jsonLines(_ stdout: String) throws -> [[String: Any]] {
        #expect(stdout.hasSuffix("\n"), "stdout does not end with a newline: \(stdout.debugDescription)")
        return try stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let dictionary = object as? [String: Any] else {
                Issue.record("not a JSON object: \(line)")
                return [:]
            }
            return dictionary
        }
    }

    /// A JPEG that decodes fully and is not truncated.
    static func expectCompleteJPEG(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let bytes = try TestSupport.bytes(path)
            #expect(bytes.starts(with: [0xFF, 0xD8]) && bytes.suffix(2).elementsEqual([0xFF, 0xD9]),
                    "\(path) is not a complete JPEG (\(bytes.count) bytes)", sourceLocation: sourceLocation)
            let image = try TestSupport.decode(path)
            #expect(image.width > 0 && image.height > 0, sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(path) does not decode: \(error)", sourceLocation: sourceLocation)
        }
    }

    static func listing(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    // MARK: where inputs come from

    @Test func nullSeparatedFilesFromStdinHandlesAwkwardNames() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let names = ["with space.heic", "new\nline.heic", "-x.heic", "é.heic"]
        for name in names { try Self.copy(gray, to: dir.appendingPathComponent("photos/\(name)").path) }
        // What `find photos -iname '*.heic' -print0` produces.
        let found = try TestSupport.run("sh", ["-c", "find photos -iname '*.heic' -print0"], cwd: dir)
        #expect(found.stdout.filter { $0 == "\0" }.count == 4)
        let run = try TestSupport.imgprep(["convert", "-0", "--files-from", "-", "--to", "jpeg", "-o", "out/"],
                                          input: Data(found.stdout.utf8), cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        for name in names {
            let output = dir.appendingPathComponent("out/" + name.replacingOccurrences(of: ".heic", with: ".jpg")).path
            #expect(Self.exists(output), "missing output for \(name.debugDescription): \(Self.listing(dir.appendingPathComponent("out").path))")
            Self.expectCompleteJPEG(output)
        }
        #expect(Self.listing(dir.appendingPathComponent("out").path).count == 4)
    }

    /// Non-UTF-8 byte names (legal on Linux) are not required to work; this records what happens.
    /// Today: the path is decoded lossily (0xFF becomes U+FFFD), so the file is reported as
    /// "no such file or directory" and the run exits 1.
    @Test func nonUTF8NameFromNullSeparatedStdin() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try TestSupport.run("sh", ["-c", "mkdir photos && cp \"$1\" \"photos/$(printf 'bad\\377name.heic')\"", "sh", gray], cwd: dir)
        let found = try TestSupport.run("sh", ["-c", "find photos -name '*.heic' | wc -l"], cwd: dir)
        #expect(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        var input = Data("photos/bad".utf8)
        input.append(0xFF)
        input.append(contentsOf: Array("name.heic".utf8) + [0])
        let run = try TestSupport.imgprep(["convert", "-0", "--files-from", "-", "-o", "out"], input: input, cwd: dir)
        let outputs = try TestSupport.run("sh", ["-c", "ls out 2>/dev/null | wc -l"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(outputs.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        // The output keeps the name's bytes: bad\xFFname.jpg.
        let exact = try TestSupport.run("sh", ["-c", "test -s \"out/$(printf 'bad\\377name.jpg')\""], cwd: dir)
        #expect(exact.status == 0, "the output name lost its original bytes")
        // The same name found by -r, and given as an argument.
        let recursive = try TestSupport.imgprep(["convert", "-r", "photos", "-o", "rout", "--json"], cwd: dir)
        let recursiveOutputs = try TestSupport.run("sh", ["-c", "ls rout 2>/dev/null | wc -l"], cwd: dir)
        #expect(recursive.status == 0, "\(recursive.stderr)")
        #expect(recursiveOutputs.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        let argument = try TestSupport.run("sh", ["-c", "\"$0\" convert \"photos/$(printf 'bad\\377name.heic')\" -o aout && test -s \"aout/$(printf 'bad\\377name.jpg')\"",
                                                  TestSupport.binary], cwd: dir)
        #expect(argument.status == 0, "\(argument.stderr)")
    }

    @Test func pipedStdinWithoutPathsIsReadAsNewlineSeparatedPaths() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("assets/one.heic").path)
        try Self.copy(p3, to: dir.appendingPathComponent("assets/two words.heic").path)
        // `find assets -name ... | imgprep compress --max-bytes 1MB -o dist`: no path arguments.
        let list = "assets/one.heic\nassets/two words.heic\n"
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "-o", "dist"], input: Data(list.utf8), cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        Self.expectCompleteJPEG(dir.appendingPathComponent("dist/one.jpg").path)
        Self.expectCompleteJPEG(dir.appendingPathComponent("dist/two words.jpg").path)

        // The same with CRLF line ends, as a Windows-made list would have.
        let crlf = try TestSupport.imgprep(["convert", "-o", "crlf"], input: Data("assets/one.heic\r\nassets/two words.heic\r\n".utf8), cwd: dir)
        #expect(crlf.status == 0, "\(crlf.stderr)")
        #expect(Self.listing(dir.appendingPathComponent("crlf").path) == ["one.jpg", "two words.jpg"])
    }

    @Test func pipedStdinIsReadForCompressInPlace() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A JPEG over budget: convert the P3 fixture at quality 100.
        let made = try TestSupport.imgprep(["convert", p3, "--quality", "100", "-o", dir.appendingPathComponent("assets").path])
        #expect(made.status == 0, "\(made.stderr)")
        let jpeg = dir.appendingPathComponent("assets/gps-p3.jpg").path
        let before = try Self.fileStat(jpeg)
        let budget = before.size / 2
        let find = try TestSupport.run("sh", ["-c", "find assets -name '*.jpg'"], cwd: dir)
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "\(budget)", "--in-place"], input: Data(find.stdout.utf8), cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let after = try Self.fileStat(jpeg)
        #expect(after.size <= budget && after.size > 0, "\(after.size) > \(budget)")
        Self.expectCompleteJPEG(jpeg)
    }

    @Test func filesFromAFileOfPaths() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("in/a.heic").path)
        try Self.copy(gray, to: dir.appendingPathComponent("in/b c.heic").path)
        try "in/a.heic\nin/b c.heic\n\n".write(to: dir.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        let run = try TestSupport.imgprep(["convert", "--files-from", "list.txt", "-o", "out"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.listing(dir.appendingPathComponent("out").path) == ["a.jpg", "b c.jpg"])

        // NUL-separated file of paths.
        try Data("in/a.heic\0in/b c.heic\0".utf8).write(to: dir.appendingPathComponent("list0"))
        let nul = try TestSupport.imgprep(["convert", "-0", "--files-from", "list0", "-o", "out0"], cwd: dir)
        #expect(nul.status == 0, "\(nul.stderr)")
        #expect(Self.listing(dir.appendingPathComponent("out0").path) == ["a.jpg", "b c.jpg"])

        // A list that cannot be read is a usage error.
        let missing = try TestSupport.imgprep(["convert", "--files-from", "nope.txt", "-o", "out"], cwd: dir)
        #expect(missing.status == 2, "\(missing.stderr)")
    }

    @Test func noInputsAtAllIsAUsageError() throws {
        let run = try TestSupport.imgprep(["convert", "-o", "/tmp/never"])  // stdin is /dev/null: not a list
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("no input files"))
    }

    @Test func anEmptyListIsNotAnError() throws {
        // A CI step whose `find` matches nothing: an empty pipe.
        let empty = try TestSupport.imgprep(["convert", "--files-from", "-", "-o", "/tmp/never", "--json"], input: Data())
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(try Self.jsonLines(empty.stdout).count == 1)   // the summary alone
    }

    // MARK: -r and naming

    @Test func recursiveMirrorsTheTreeAndSkipsNonImagesSilently() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = dir.appendingPathComponent("photos").path
        try Self.copy(gray, to: "\(photos)/a/b/x.heic")
        try Self.copy(p3, to: "\(photos)/a/y.HEIC")
        try Self.copy(gray, to: "\(photos)/top.heic")
        try "notes".write(toFile: "\(photos)/a/notes.txt", atomically: true, encoding: .utf8)
        try "# readme".write(toFile: "\(photos)/README.md", atomically: true, encoding: .utf8)
        let run = try TestSupport.imgprep(["convert", "-r", "photos/", "--to", "jpeg", "-o", "out/", "--json"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("notes.txt") && !run.stdout.contains("notes.txt"), "\(run.stderr)")
        #expect(!run.stderr.contains("README") && !run.stdout.contains("README"))
        let out = dir.appendingPathComponent("out").path
        for output in ["a/b/x.jpg", "a/y.jpg", "top.jpg"] { Self.expectCompleteJPEG("\(out)/\(output)") }
        let all = FileManager.default.enumerator(atPath: out)?.allObjects as? [String] ?? []
        #expect(all.sorted() == ["a", "a/b", "a/b/x.jpg", "a/y.jpg", "top.jpg"])
        let lines = try Self.jsonLines(run.stdout)
        #expect(lines.count == 4)
        #expect((lines.last?["summary"] as? [String: Any])?["converted"] as? Int == 3)

        // Without a trailing slash, same tree.
        let again = try TestSupport.imgprep(["convert", "-r", "photos", "-o", "out2", "--quiet"], cwd: dir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.exists(dir.appendingPathComponent("out2/a/b/x.jpg").path))
    }

    @Test func aNonImageNamedExplicitlyIsAnErrorLine() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "hello".write(to: dir.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        try Self.copy(gray, to: dir.appendingPathComponent("ok.heic").path)
        let run = try TestSupport.imgprep(["convert", "notes.txt", "ok.heic", "-o", "out"], cwd: dir)
        #expect(run.status == 1)
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("imgprep: notes.txt: ") }
        #expect(errors.count == 1, "\(run.stderr)")
        #expect(Self.exists(dir.appendingPathComponent("out/ok.jpg").path), "the good file should still be converted")
        #expect(!Self.exists(dir.appendingPathComponent("out/notes.jpg").path))
    }

    @Test func aDirectoryWithoutRecursiveIsAnError() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("photos/x.heic").path)
        let run = try TestSupport.imgprep(["convert", "photos", "-o", "out"], cwd: dir)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("imgprep: photos: read: is a directory"), "\(run.stderr)")
        #expect(!Self.exists(dir.appendingPathComponent("out/x.jpg").path))
    }

    /// Outputs are claimed as inputs arrive (a list may still be arriving): the first input to claim an
    /// output writes it, and a later one fails without being read, naming the first.
    @Test func twoInputsWritingOneOutputTheFirstWinsAndTheOtherFailsNamingIt() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("a/x.heic").path)
        try Self.copy(p3, to: dir.appendingPathComponent("b/x.heic").path)
        let run = try TestSupport.imgprep(["convert", "a/x.heic", "b/x.heic", "-o", "out", "--json"], cwd: dir)
        #expect(run.status == 1)
        let files = try Self.jsonLines(run.stdout).filter { $0["summary"] == nil }
        let first = files.first { $0["input"] as? String == "a/x.heic" }
        let second = files.first { $0["input"] as? String == "b/x.heic" }
        #expect(first?["status"] as? String == "ok")
        #expect(second?["status"] as? String == "failed")
        #expect(second?["error_kind"] as? String == "output")
        #expect((second?["error"] as? String)?.contains("out/x.jpg is written from a/x.heic already") == true, "\(files)")
        #expect(second?["encodes"] is NSNull, "a colliding input must not be encoded: \(files)")
        #expect(try TestSupport.decode(dir.appendingPathComponent("out/x.jpg").path).width == 64, "the first input's output (gray is 64 wide)")

        // Same directory, names differing only in extension case: x.heic and x.HEIC both want x.jpg.
        try Self.copy(gray, to: dir.appendingPathComponent("c/x.heic").path)
        try Self.copy(p3, to: dir.appendingPathComponent("c/x.HEIC").path)
        let same = try TestSupport.imgprep(["convert", "c/x.heic", "c/x.HEIC"], cwd: dir)
        #expect(same.status == 1)
        #expect(same.stderr.split(separator: "\n").filter { $0.contains("is written from c/x.heic already") }.count == 1, "\(same.stderr)")
        #expect(try TestSupport.decode(dir.appendingPathComponent("c/x.jpg").path).width == 64)

        // Two -r roots whose trees hold the same relative path: the first root's file wins.
        let roots = try TestSupport.imgprep(["convert", "-r", "a", "b", "-o", "out2", "--json"], cwd: dir)
        #expect(roots.status == 1)
        let rootLines = try Self.jsonLines(roots.stdout).filter { $0["summary"] == nil }
        let statuses = Dictionary(uniqueKeysWithValues: rootLines.map { ($0["input"] as? String ?? "", $0["status"] as? String ?? "") })
        #expect(statuses == ["a/x.heic": "ok", "b/x.heic": "failed"], "\(roots.stdout)")
        #expect(Self.exists(dir.appendingPathComponent("out2/x.jpg").path))
    }

    /// The same file named twice (`a.heic a.heic`, or `p/a.heic -r p`) is one input, not a collision
    /// with itself.
    @Test func theSameInputTwiceIsNotACollisionWithItself() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("p/a.heic").path)
        for arguments in [["p/a.heic", "p/a.heic"], ["p/a.heic", "-r", "p"], ["p/a.heic", "./p/a.heic"]] {
            let run = try TestSupport.imgprep(["convert"] + arguments + ["-o", "out"], cwd: dir)
            #expect(!run.stderr.contains("is written from"), "\(arguments): \(run.stderr)")
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(Self.exists(dir.appendingPathComponent("out/a.jpg").path), "\(arguments)")
            try? FileManager.default.removeItem(atPath: dir.appendingPathComponent("out").path)
        }
    }

    /// `imgprep convert -r . -o out/` run twice: the second run must not take out/*.jpg as inputs.
    /// Today it does: out/a.jpg fails ("the output out/a.jpg would replace another input"), exit 1,
    /// and out/out/... is created from the previous outputs.
    @Test func recursiveRunDoesNotPickUpItsOwnOutputDirectory() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("a.heic").path)
        try Self.copy(gray, to: dir.appendingPathComponent("p/b.heic").path)
        let first = try TestSupport.imgprep(["convert", "-r", ".", "--to", "jpeg", "-o", "out/", "--update"], cwd: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try TestSupport.imgprep(["convert", "-r", ".", "--to", "jpeg", "-o", "out/", "--update", "--json"], cwd: dir)
        #expect(second.status == 0, "\(second.stdout)\n\(second.stderr)")
        let lines = try Self.jsonLines(second.stdout).filter { $0["summary"] == nil }
        #expect(lines.count == 2 && lines.allSatisfy { $0["status"] as? String == "skipped" }, "\(second.stdout)")
        #expect(!Self.exists(dir.appendingPathComponent("out/out").path))
    }

    @Test func anOutputThatWouldReplaceItsInputIsRefused() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let made = try TestSupport.imgprep(["convert", gray, "-o", dir.path])
        #expect(made.status == 0)
        let jpeg = dir.appendingPathComponent("gray.jpg").path
        let before = try TestSupport.bytes(jpeg)
        let run = try TestSupport.imgprep(["convert", "gray.jpg", "--quality", "50"], cwd: dir)
        #expect(run.status == 1)
        #expect(run.stderr.contains("would replace its own input"), "\(run.stderr)")
        #expect(try TestSupport.bytes(jpeg) == before)
    }

    // MARK: existing outputs

    @Test func updateSkipsNewerOutputsAndConvertsOlderOnes() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("photos/old.heic").path)
        try Self.copy(gray, to: dir.appendingPathComponent("photos/new.heic").path)
        try Self.copy(gray, to: dir.appendingPathComponent("photos/missing.heic").path)
        let first = try TestSupport.imgprep(["convert", "-r", "photos/", "--to", "jpeg", "-o", "out/"], cwd: dir)
        #expect(first.status == 0, "\(first.stderr)")
        try FileManager.default.removeItem(atPath: dir.appendingPathComponent("out/missing.jpg").path)
        let now = Date()
        // old.jpg is older than its input, new.jpg newer.
        try Self.setMtime(dir.appendingPathComponent("photos/old.heic").path, now.addingTimeInterval(-100))
        try Self.setMtime(dir.appendingPathComponent("out/old.jpg").path, now.addingTimeInterval(-200))
        try Self.setMtime(dir.appendingPathComponent("photos/new.heic").path, now.addingTimeInterval(-200))
        try Self.setMtime(dir.appendingPathComponent("out/new.jpg").path, now.addingTimeInterval(-100))
        let newBefore = try Self.fileStat(dir.appendingPathComponent("out/new.jpg").path)

        let run = try TestSupport.imgprep(["convert", "-r", "photos/", "--to", "jpeg", "-o", "out/", "--update", "--json"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.jsonLines(run.stdout)
        var status: [String: String] = [:]
        for line in lines where line["summary"] == nil {
            status[((line["input"] as? String ?? "") as NSString).lastPathComponent] = line["status"] as? String
        }
        #expect(status == ["old.heic": "ok", "new.heic": "skipped", "missing.heic": "ok"], "\(status)")
        let summary = lines.last?["summary"] as? [String: Any]
        #expect(summary?["converted"] as? Int == 2 && summary?["skipped"] as? Int == 1, "\(String(describing: summary))")
        let newAfter = try Self.fileStat(dir.appendingPathComponent("out/new.jpg").path)
        #expect(newAfter.inode == newBefore.inode && newAfter.mtimeSeconds == newBefore.mtimeSeconds)
        #expect(try Self.fileStat(dir.appendingPathComponent("out/old.jpg").path).mtimeSeconds >= Int(now.timeIntervalSince1970) - 1)
    }

    @Test func skipExistingSkipsAndTheDefaultOverwrites() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("in/a.heic").path)
        try Self.copy(gray, to: dir.appendingPathComponent("in/b.heic").path)
        try FileManager.default.createDirectory(atPath: dir.appendingPathComponent("out").path, withIntermediateDirectories: true)
        // a.jpg exists (with junk, newer than its input); b.jpg does not.
        let junk = Data("not really a jpeg".utf8)
        try junk.write(to: dir.appendingPathComponent("out/a.jpg"))

        let skip = try TestSupport.imgprep(["convert", "in/a.heic", "in/b.heic", "-o", "out", "--skip-existing", "--json"], cwd: dir)
        #expect(skip.status == 0, "skips are not failures: \(skip.stderr)")
        let lines = try Self.jsonLines(skip.stdout)
        let a = lines.first { ($0["input"] as? String) == "in/a.heic" }
        let b = lines.first { ($0["input"] as? String) == "in/b.heic" }
        #expect(a?["status"] as? String == "skipped")
        #expect(b?["status"] as? String == "ok")
        #expect(try Data(contentsOf: dir.appendingPathComponent("out/a.jpg")) == junk)

        let overwrite = try TestSupport.imgprep(["convert", "in/a.heic", "in/b.heic", "-o", "out"], cwd: dir)
        #expect(overwrite.status == 0, "\(overwrite.stderr)")
        Self.expectCompleteJPEG(dir.appendingPathComponent("out/a.jpg").path)
    }

    // MARK: dry run

    @Test func dryRunWritesNothingAndExitsZero() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("assets/a.heic").path)
        try Self.copy(p3, to: dir.appendingPathComponent("assets/sub/b.heic").path)
        try FileManager.default.createDirectory(atPath: dir.appendingPathComponent("dist").path, withIntermediateDirectories: true)
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "500KB", "-r", "assets/", "-o", "dist/", "--dry-run"], cwd: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.listing(dir.appendingPathComponent("dist").path).isEmpty, "\(Self.listing(dir.appendingPathComponent("dist").path))")
        #expect(run.stdout.contains("dist/sub/b.jpg"), "dry run should say what it would write: \(run.stdout)")

        let json = try TestSupport.imgprep(["convert", "-r", "assets", "-o", "dist2", "--dry-run", "--json"], cwd: dir)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(!Self.exists(dir.appendingPathComponent("dist2").path), "dry run must not even create -o DIR")
        let lines = try Self.jsonLines(json.stdout)
        #expect(lines.count == 3)
        for line in lines.dropLast() { #expect(line["status"] as? String == "ok" && line["dry_run"] as? Bool == true, "\(line)") }
    }

    // MARK: --json

    @Test func jsonIsOneObjectPerFileThenOneSummary() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.copy(gray, to: dir.appendingPathComponent("photos/a.heic").path)
        try Self.copy(p3, to: dir.appendingPathComponent("photos/b.heic").path)
        try Self.copy(heic + "/orientation-6.heic", to: dir.appendingPathComponent("photos/c.heic").path)
        try Self.copy(bad + "/truncated.heic", to: dir.appendingPathComponent("photos/truncated.heic").path)
        try "text".write(to: dir.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        try Self.copy(gray, to: dir.appendingPathComponent("out/a.jpg").path)  // exists already → skipped
        try Self.setMtime(dir.appendingPathComponent("photos/a.heic").path, Date().addingTimeInterval(-60))
        let run = try TestSupport.imgprep(["convert", "-r", "photos/", "notes.txt", "does-not-exist.heic", "--to", "jpeg",
                                           "-o", "out/", "--jobs", "4", "--json", "--update"], cwd: dir)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(!run.stdout.contains("\r") && !run.stdout.contains("ETA") && !run.stdout.contains("files/s"), "progress text in stdout")
        let lines = try Self.jsonLines(run.stdout)
        let files = Array(lines.dropLast())
        #expect(files.count == 6, "\(run.stdout)")
        let keys = ["input", "output", "status", "error", "format", "width", "height", "bytes", "quality", "encodes", "ms"]
        for file in files {
            #expect(file["summary"] == nil)
            let missing = keys.filter { file[$0] == nil }
            #expect(missing.isEmpty, "\(file["input"] ?? "?"): missing keys \(missing)")
            #expect(["ok", "skipped", "failed"].contains(file["status"] as? String ?? ""), "\(file)")
            if file["status"] as? String == "failed" {
                #expect(file["error"] is String, "\(file)")
            } else {
                #expect(file["error"] is NSNull, "\(file)")
            }
        }
        let byInput = Dictionary(files.map { (($0["input"] as? String) ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byInput["photos/a.heic"]?["status"] as? String == "skipped")
        #expect(byInput["photos/truncated.heic"]?["status"] as? String == "failed")
        #expect(byInput["notes.txt"]?["status"] as? String == "failed")
        #expect(byInput["does-not-exist.heic"]?["status"] as? String == "failed")
        if let b = byInput["photos/b.heic"] {
            #expect(b["status"] as? String == "ok")
            #expect(b["output"] as? String == "out/b.jpg")
            #expect(b["format"] as? String == "jpeg")
            #expect(b["width"] as? Int == 320 && b["height"] as? Int == 240)
            #expect(b["bytes"] as? Int == (try? Self.fileStat(dir.appendingPathComponent("out/b.jpg").path).size))
            #expect(b["quality"] as? Int == 85 && b["encodes"] as? Int == 1)
            #expect(b["ms"] is Int)
        } else {
            Issue.record("no line for photos/b.heic")
        }

        let summaryLines = lines.filter { $0["summary"] != nil }
        #expect(summaryLines.count == 1)
        let summary = try #require(lines.last?["summary"] as? [String: Any], "the last line must be the summary")
        let count = { (status: String) in files.filter { $0["status"] as? String == status }.count }
        #expect(summary["converted"] as? Int == count("ok") && count("ok") == 2, "\(summary)")
        #expect(summary["skipped"] as? Int == count("skipped") && count("skipped") == 1, "\(summary)")
        #expect(summary["failed"] as? Int == count("failed") && count("failed") == 3, "\(summary)")
        #expect(summary["interrupted"] as? Bool == false)
    }

    // MARK: exit codes

    @Test func exitCodes() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for jobs in ["0", "x", "-1", "257"] {
            let run = try TestSupport.imgprep(["convert", gray, "-o", dir.path, "--jobs", jobs])
            #expect(run.status == 2, "--jobs \(jobs): \(run.stderr)")
            #expect(run.stderr.contains("--jobs"), "--jobs \(jobs): \(run.stderr)")
        }
        #expect(try TestSupport.imgprep(["convert", gray, "--bogus"]).status == 2)
        #expect(try TestSupport.imgprep(["convert", gray, "-j"]).status == 2)
        #expect(try TestSupport.imgprep(["compress", gray, "-o", dir.path]).status == 2, "compress needs --max-bytes")
        #expect(Self.listing(dir.path).isEmpty, "usage errors must not convert anything")

        let ok = try TestSupport.imgprep(["convert", gray, "-o", dir.path, "-j4"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let skipped = try TestSupport.imgprep(["convert", gray, "-o", dir.path, "--skip-existing"])
        #expect(skipped.status == 0, "only skips: \(skipped.stderr)")
        let failed = try TestSupport.imgprep(["convert", gray, "\(bad)/truncated.heic", "-o", dir.path])
        #expect(failed.status == 1, "\(failed.stderr)")
    }

    // MARK: interruption

    /// A batch reading its list from a pipe the test holds open, given every path but the last: it can
    /// neither finish nor run out of work before the test's signal, however fast the machine.
    final class ListedBatch {
        let process = Process()
        let list = Pipe()
        let stdoutURL: URL, stderrURL: URL

        init(_ arguments: [String], paths: [String], in dir: URL) throws {
            stdoutURL = dir.appendingPathComponent("stdout")
            stderrURL = dir.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: TestSupport.binary)
            process.arguments = arguments + ["--files-from", "-"]
            process.environment = TestSupport.environment()
            process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
            process.standardError = try FileHandle(forWritingTo: stderrURL)
            process.standardInput = list
            try process.run()
            list.fileHandleForWriting.write(Data(paths.dropLast().map { $0 + "\n" }.joined().utf8))
        }

        /// SIGINT, then the end of the list; true when the process ended within a minute (else it is killed).
        func interrupt() -> Bool {
            process.interrupt()
            try? list.fileHandleForWriting.close()
            guard TestSupport.waitUntil({ !process.isRunning }) else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return false
            }
            process.waitUntilExit()
            return true
        }

        var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    }

    @Test func sigintStopsTheBatchCleanly() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = dir.appendingPathComponent("in").path
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        // Big real photos when the corpus is here (a signal is likely to find files in flight), otherwise
        // small fixtures.
        let big = TestSupport.corpus.map { $0.appendingPathComponent("heic/libvips__Example1.heic").path }
        let source = big.flatMap { Self.exists($0) ? $0 : nil } ?? p3
        let count = source == p3 ? 200 : 40
        // Distinct files: copies of one would be prepared once and the rest written as duplicates.
        let paths = try DistinctInputs.copies(of: source, count: count, in: inputs) { "p\($0).heic" }
        let out = dir.appendingPathComponent("out").path
        let batch = try ListedBatch(["convert", "-j", "2", "-o", out], paths: paths, in: dir)
        // Once the first output exists, work is under way (and the signal handlers, installed first, are in place).
        #expect(TestSupport.waitUntil { !Self.listing(out).filter({ !$0.hasPrefix(".") }).isEmpty || !batch.process.isRunning },
                "no output after a minute")
        #expect(batch.interrupt(), "still running a minute after SIGINT")
        #expect(batch.process.terminationReason == .exit)
        #expect(batch.process.terminationStatus == 130, "\(batch.stderr)")
        let summary = batch.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.contains("interrupted"), "\(batch.stderr)")
        let written = Self.listing(out)
        #expect(written.filter { $0.contains(".imgprep-") || $0.hasPrefix(".") }.isEmpty, "temporary files left: \(written)")
        #expect(written.count < count, "nothing was interrupted: \(written.count) of \(count)")
        #expect(!written.isEmpty)
        for name in written { Self.expectCompleteJPEG("\(out)/\(name)") }
    }

    @Test func sigintInJsonModeEndsWithAnInterruptedSummary() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try DistinctInputs.copies(of: p3, count: 200, in: dir.path) { "p\($0).heic" }
        let out = dir.appendingPathComponent("out").path
        let batch = try ListedBatch(["convert", "-j", "2", "--json", "-o", out], paths: paths, in: dir)
        #expect(TestSupport.waitUntil { Self.listing(out).filter({ !$0.hasPrefix(".") }).count >= 5 || !batch.process.isRunning },
                "fewer than 5 outputs after a minute")
        #expect(batch.interrupt(), "still running a minute after SIGINT")
        #expect(batch.process.terminationStatus == 130, "\(batch.stderr)")
        let lines = try Self.jsonLines(batch.stdout)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["interrupted"] as? Bool == true)
        let files = lines.dropLast()
        #expect(summary["converted"] as? Int == files.filter { $0["status"] as? String == "ok" }.count)
        #expect(files.count < paths.count)
        #expect(Self.listing(out).filter { $0.hasPrefix(".") }.isEmpty)
        #expect(Self.listing(out).count == files.filter { $0["status"] as? String == "ok" }.count,
                "every output on disk should have been reported, and vice versa")
    }

    // MARK: --fail-fast, --preserve-mtime

    @Test func failFastStopsAtTheFirstFailure() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var inputs = ["\(bad)/truncated.heic"]
        for index in 0..<6 {
            let path = dir.appendingPathComponent("g\(index).heic").path
            try Self.copy(gray, to: path)
            inputs.append(path)
        }
        let out = dir.appendingPathComponent("out").path
        let run = try TestSupport.imgprep(["convert", "-j", "1", "--fail-fast", "--json", "-o", out] + inputs)
        #expect(run.status == 1)
        let lines = try Self.jsonLines(run.stdout)
        let files = lines.filter { $0["summary"] == nil }
        #expect(files.count < inputs.count, "\(files.count) outcomes for \(inputs.count) inputs")
        #expect(files.first?["status"] as? String == "failed")
        #expect(Self.listing(out).count < 6)

        // Without --fail-fast every input gets an outcome.
        let all = try TestSupport.imgprep(["convert", "-j", "1", "--json", "-o", out] + inputs)
        #expect(try Self.jsonLines(all.stdout).filter { $0["summary"] == nil }.count == inputs.count)
    }

    @Test func preserveMtimeCopiesTheInputModificationTime() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("a.heic").path
        try Self.copy(gray, to: input)
        try TestSupport.run("touch", ["-d", "2001-02-03 04:05:06.123456789", input])
        let run = try TestSupport.imgprep(["convert", input, "--preserve-mtime", "-o", dir.appendingPathComponent("out").path])
        #expect(run.status == 0, "\(run.stderr)")
        let a = try Self.fileStat(input), b = try Self.fileStat(dir.appendingPathComponent("out/a.jpg").path)
        #expect(b.mtimeSeconds == a.mtimeSeconds, "\(b.mtimeSeconds) != \(a.mtimeSeconds)")
        // To the nanosecond: make compares nanoseconds, and an output even 1 ns older than its input is stale.
        #expect(b.mtimeNanos == a.mtimeNanos, "output \(b.mtimeNanos) ns vs input \(a.mtimeNanos) ns")

        // Without the flag, the output is new.
        let plain = try TestSupport.imgprep(["convert", input, "-o", dir.appendingPathComponent("out2").path])
        #expect(plain.status == 0)
        #expect(try Self.fileStat(dir.appendingPathComponent("out2/a.jpg").path).mtimeSeconds > a.mtimeSeconds)
    }

    /// --preserve-mtime then --update must skip (the output is not older than its input). Today the
    /// mtime goes through a Double (Date), lands up to ~120 ns early, and --update converts again.
    @Test func preserveMtimeThenUpdateSkips() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var inputs: [String] = []
        for (index, nanos) in ["000000001", "777777777", "987654321", "123456789"].enumerated() {
            let input = dir.appendingPathComponent("i\(index).heic").path
            try Self.copy(gray, to: input)
            try TestSupport.run("touch", ["-d", "2026-05-03 04:05:06.\(nanos)", input])
            inputs.append(input)
        }
        let out = dir.appendingPathComponent("out").path
        let first = try TestSupport.imgprep(["convert", "--preserve-mtime", "-o", out] + inputs)
        #expect(first.status == 0, "\(first.stderr)")
        for input in inputs {
            let a = try Self.fileStat(input)
            let b = try Self.fileStat("\(out)/\((input as NSString).lastPathComponent.replacingOccurrences(of: ".heic", with: ".jpg"))")
            #expect(b.mtimeSeconds == a.mtimeSeconds && b.mtimeNanos == a.mtimeNanos,
                    "\((input as NSString).lastPathComponent): input \(a.mtimeSeconds).\(a.mtimeNanos), output \(b.mtimeSeconds).\(b.mtimeNanos)")
        }
        let second = try TestSupport.imgprep(["convert", "--preserve-mtime", "--update", "--json", "-o", out] + inputs)
        let summary = try Self.jsonLines(second.stdout).last?["summary"] as? [String: Any]
        #expect(summary?["skipped"] as? Int == inputs.count, "\(second.stdout)")
    }

    // MARK: --in-place

    @Test func compressInPlaceReplacesAtomicallyAndKeepsPermissions() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let made = try TestSupport.imgprep(["convert", p3, "--quality", "100", "-o", dir.path])
        #expect(made.status == 0)
        let big = dir.appendingPathComponent("big.jpg").path, small = dir.appendingPathComponent("small.jpg").path
        try FileManager.default.moveItem(atPath: dir.appendingPathComponent("gps-p3.jpg").path, toPath: big)
        try FileManager.default.copyItem(atPath: big, toPath: small)
        chmod(big, 0o600)
        chmod(small, 0o640)
        let bigBefore = try Self.fileStat(big)
        let budget = bigBefore.size * 2 / 3

        let run = try TestSupport.imgprep(["compress", "--max-bytes", "\(budget)", "--in-place", big])
        #expect(run.status == 0, "\(run.stderr)")
        let bigAfter = try Self.fileStat(big)
        #expect(bigAfter.size <= budget, "\(bigAfter.size) > \(budget)")
        #expect(bigAfter.mode == 0o600, "\(String(bigAfter.mode, radix: 8))")
        #expect(bigAfter.inode != bigBefore.inode, "not replaced by rename")
        Self.expectCompleteJPEG(big)
        #expect(Self.listing(dir.path).filter { $0.hasPrefix(".") }.isEmpty)

        // Already within budget: left alone, byte for byte, same inode.
        let smallBytes = try TestSupport.bytes(small)
        let smallBefore = try Self.fileStat(small)
        let within = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--in-place", small])
        #expect(within.status == 0, "\(within.stderr)")
        let smallAfter = try Self.fileStat(small)
        #expect(try TestSupport.bytes(small) == smallBytes)
        #expect(smallAfter.inode == smallBefore.inode)
        #expect(smallAfter.mode == 0o640)
        #expect(smallAfter.mtimeSeconds == smallBefore.mtimeSeconds && smallAfter.mtimeNanos == smallBefore.mtimeNanos)
    }

    /// `compress --in-place photo.heic` must not leave JPEG bytes under a .heic name (nor silently
    /// report success for it): it should refuse the file (or write photo.jpg, leaving the HEIC alone).
    @Test func compressInPlaceOnHeicDoesNotWriteJpegIntoTheHeicName() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("photo.heic").path
        try Self.copy(p3, to: input)
        let original = try TestSupport.bytes(input)
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--in-place", input])
        let after = try TestSupport.bytes(input)
        #expect(!after.starts(with: [0xFF, 0xD8]),
                "photo.heic now holds JPEG bytes (exit \(run.status), stdout: \(run.stdout), stderr: \(run.stderr))")
        #expect(after == original, "the HEIC must be left as it was")
        #expect(run.status == 1 && run.stderr.contains("photo.heic"), "refusing it is a failure for that file: \(run.stderr)")
    }

    // MARK: make -j

    @Test(.enabled(if: TestSupport.toolExists("make"), "make is not installed"))
    func makefilePatternRuleWorksWithParallelMake() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for index in 0..<6 { try Self.copy(gray, to: dir.appendingPathComponent("img\(index).heic").path) }
        let makefile = """
        IMGPREP := \(TestSupport.binary)
        SOURCES := $(wildcard *.heic)
        all: $(SOURCES:.heic=.jpg)
        %.jpg: %.heic
        \t$(IMGPREP) convert $< -o $(@D) --quiet
        .PHONY: all

        """
        try makefile.write(to: dir.appendingPathComponent("Makefile"), atomically: true, encoding: .utf8)
        let first = try TestSupport.run("make", ["-j", "4"], cwd: dir)
        #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
        for index in 0..<6 { Self.expectCompleteJPEG(dir.appendingPathComponent("img\(index).jpg").path) }
        #expect(Self.listing(dir.path).filter { $0.hasPrefix(".") }.isEmpty)
        let second = try TestSupport.run("make", ["-j", "4"], cwd: dir)
        #expect(second.status == 0)
        #expect(second.stdout.contains("Nothing to be done") || second.stdout.contains("up to date"), "\(second.stdout)")
        #expect(!second.stdout.contains("convert"), "second make rebuilt something: \(second.stdout)")

        // Touch one source: exactly that one is rebuilt.
        try Self.setMtime(dir.appendingPathComponent("img3.heic").path, Date().addingTimeInterval(5))
        let third = try TestSupport.run("make", ["-j", "4"], cwd: dir)
        #expect(third.status == 0)
        #expect(third.stdout.split(separator: "\n").filter { $0.contains("convert") }.count == 1, "\(third.stdout)")
    }
}
