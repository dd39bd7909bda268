import Foundation
import Testing
@testable import ImagePrep

/// The small promises a user checks first: JSON that always parses, a dry run that says what it would
/// write, `-o` as a file, `info` that tells the upright size and names colours, empty lists, versions,
/// suggestions, every exit status in --help, error kinds, budgets in the user's units, one line per failure.
@Suite(.serialized) struct CLIPromisesTests {
    let heic = TestSupport.fixtures.appendingPathComponent("heic").path
    let bad = TestSupport.fixtures.appendingPathComponent("bad").path
    var gray: String { "\(heic)/gray.heic" }
    var p3: String { "\(heic)/gps-p3.heic" }

    // MARK: --json and names that are not UTF-8

    @Test func jsonIsValidUTF8ForEveryNameAndKeepsTheExactBytes() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try TestSupport.run("sh", ["-c", "cp \"$1\" \"$(printf 'bad\\377name.heic')\"", "sh", gray], cwd: dir)
        let run = try TestSupport.run("sh", ["-c", "\"$0\" convert \"$(printf 'bad\\377name.heic')\" missing\\ $(printf '\\376').heic -o out --json",
                                             TestSupport.binary], cwd: dir)
        #expect(run.status == 1, "\(run.stderr)")
        // Every line parses as JSON (JSONSerialization refuses invalid UTF-8).
        let lines = try BatchTests.jsonLines(run.stdout).filter { $0["summary"] == nil }
        #expect(lines.count == 2, "\(run.stdout)")
        let ok = try #require(lines.first { $0["status"] as? String == "ok" })
        #expect(ok["input"] as? String == "bad\u{FFFD}name.heic")
        #expect(ok["input_bytes"] as? String == Data(Array("bad".utf8) + [0xFF] + Array("name.heic".utf8)).base64EncodedString())
        #expect(ok["output"] as? String == "out/bad\u{FFFD}name.jpg")
        let outputBytes = try #require(Data(base64Encoded: ok["output_bytes"] as? String ?? ""))
        // The lossless field names the real file.
        let exists = try TestSupport.run("sh", ["-c", "test -s \"$(printf 'out/bad\\377name.jpg')\""], cwd: dir)
        #expect(exists.status == 0 && outputBytes == Data(Array("out/bad".utf8) + [0xFF] + Array("name.jpg".utf8)))
        let missing = try #require(lines.first { $0["status"] as? String == "failed" })
        #expect((missing["input"] as? String)?.contains("\u{FFFD}") == true && missing["input_bytes"] is String, "\(missing)")
        // A UTF-8 name has no _bytes field.
        let plain = try TestSupport.imgprep(["convert", gray, "-o", dir.appendingPathComponent("plain").path, "--json"])
        #expect(!plain.stdout.contains("_bytes"), "\(plain.stdout)")
    }

    // MARK: --dry-run

    @Test func dryRunPrintsEachOutputAndSniffsLikeARealRun() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try BatchTests.copy(gray, to: dir.appendingPathComponent("in/a.heic").path)
        try BatchTests.copy(p3, to: dir.appendingPathComponent("in/b.heic").path)
        try "not a picture".write(to: dir.appendingPathComponent("in/text.heic"), atomically: true, encoding: .utf8)
        let run = try TestSupport.imgprep(["convert", "in/a.heic", "in/b.heic", "in/text.heic", "-o", "out", "--dry-run"], cwd: dir)
        #expect(run.status == 1, "a file a real run would fail fails here too: \(run.stderr)")
        #expect(run.stdout.split(separator: "\n").sorted() == ["out/a.jpg", "out/b.jpg"], "\(run.stdout.debugDescription)")
        #expect(run.stderr.contains("imgprep: in/text.heic: sniff: not an image imgprep reads"), "\(run.stderr)")
        #expect(run.stderr.contains("would convert 2, 0 skipped, 1 failed"), "\(run.stderr)")
        #expect(!BatchTests.exists(dir.appendingPathComponent("out").path))

        let json = try TestSupport.imgprep(["convert", "in/a.heic", "in/text.heic", "-o", "out", "--dry-run", "--json"], cwd: dir)
        let lines = try BatchTests.jsonLines(json.stdout)
        #expect(lines.count == 3)
        #expect(lines[0]["output"] as? String == "out/a.jpg" || lines[1]["output"] as? String == "out/a.jpg")
        let failed = try #require(lines.first { $0["status"] as? String == "failed" })
        #expect(failed["error_kind"] as? String == "not_an_image")
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["dry_run"] as? Bool == true && summary["converted"] as? Int == 1)

        let compress = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "in/a.heic", "-o", "out", "--dry-run"], cwd: dir)
        #expect(compress.stderr.contains("would compress 1"), "\(compress.stderr)")
    }

    // MARK: -o as a file

    @Test func outputNamingAFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try BatchTests.copy(gray, to: dir.appendingPathComponent("a.heic").path)
        try BatchTests.copy(p3, to: dir.appendingPathComponent("b.heic").path)
        // One input, an image extension: that file, in the format it names.
        let jpeg = try TestSupport.imgprep(["convert", "a.heic", "-o", "picked.jpeg"], cwd: dir)
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        BatchTests.expectCompleteJPEG(dir.appendingPathComponent("picked.jpeg").path)
        let png = try TestSupport.imgprep(["convert", "a.heic", "-o", "sub/picked.png"], cwd: dir)
        #expect(png.status == 0, "\(png.stderr)")
        #expect(try TestSupport.bytes(dir.appendingPathComponent("sub/picked.png").path).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // Existing: overwritten, as vips and ImageMagick do.
        #expect(try TestSupport.imgprep(["convert", "b.heic", "-o", "picked.jpeg"], cwd: dir).status == 0)
        #expect(try TestSupport.decode(dir.appendingPathComponent("picked.jpeg").path).width == 320)

        // Several inputs, -r, or a disagreeing --to: usage errors before any work.
        for arguments in [["a.heic", "b.heic", "-o", "two.jpg"], ["-r", ".", "-o", "tree.jpg"], ["a.heic", "--to", "png", "-o", "x.jpg"]] {
            let run = try TestSupport.imgprep(["convert"] + arguments, cwd: dir)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
        }
        // compress writes every format imgprep writes (PNG as a palette): a name no writer takes is refused.
        #expect(try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "a.heic", "-o", "x.gif"], cwd: dir).status == 2)
        #expect(!BatchTests.exists(dir.appendingPathComponent("two.jpg").path) && !BatchTests.exists(dir.appendingPathComponent("x.jpg").path))

        // An existing regular file that is not an image name cannot be a directory: exit 2, nothing decoded.
        try "notes".write(to: dir.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let file = try TestSupport.imgprep(["convert", "a.heic", "-o", "notes.txt", "--json"], cwd: dir)
        #expect(file.status == 2 && file.stdout.isEmpty, "\(file.stderr)")
        #expect(file.stderr.contains("notes.txt is an existing file, not a directory"), "\(file.stderr)")
    }

    // MARK: info

    @Test(.enabled(if: LosslessJPEGTests.haveTools, "needs exiftool and libjpeg-turbo-progs"))
    func infoGivesTheUprightSizeOfTurnedJpegsAndOneJsonObjectPerFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let turned = try LosslessJPEGTests.turnedJPEG(in: dir, orientation: 6)
        let text = try TestSupport.imgprep(["info", turned])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("size:         240x320 upright (stored 320x240)"), "\(text.stdout)")
        let json = try TestSupport.imgprep(["info", "--json", turned, p3, "\(bad)/not-heif.heic"])
        #expect(json.status == 1)
        let lines = try BatchTests.jsonLines(json.stdout)
        #expect(lines.count == 3)
        #expect(lines[0]["width"] as? Int == 240 && lines[0]["height"] as? Int == 320 && lines[0]["stored_width"] as? Int == 320, "\(lines[0])")
        #expect(lines[0]["orientation"] as? Int == 6 && lines[0]["format"] as? String == "JPEG")
        #expect((lines[1]["icc"] as? [String: Any])?["name"] as? String == "Display P3", "\(lines[1])")
        #expect((lines[1]["exif"] as? [String: Any])?["Make"] as? String == "ImgPrepTest", "\(lines[1])")
        #expect(lines[2]["status"] as? String == "failed" && lines[2]["error_kind"] as? String == "not_an_image", "\(lines[2])")
    }

    /// GPS reads as decimal degrees with the hemisphere, as exiftool computes them (south and west too);
    /// --json has the signed decimals and the raw values.
    @Test(.enabled(if: TestSupport.toolExists("exiftool"), "needs exiftool"))
    func infoGivesGPSInDecimalDegrees() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let southWest = dir.appendingPathComponent("sw.heic").path
        try FileManager.default.copyItem(atPath: p3, toPath: southWest)
        let written = try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-GPSLatitudeRef=S", "-GPSLongitudeRef=W", southWest])
        #expect(written.status == 0, "\(written.stderr)")
        for (path, latitudeSign, longitudeSign) in [(p3, 1.0, 1.0), (southWest, -1.0, -1.0)] {
            let tags = try TestSupport.exiftool(path, ["-c", "%.8f"])
            let latitude = try #require(tags["Composite:GPSLatitude"] as? Double), longitude = try #require(tags["Composite:GPSLongitude"] as? Double)
            #expect(latitude * latitudeSign > 0 && longitude * longitudeSign > 0, "\(tags)")
            let expected = String(format: "%.6f° %@, %.6f° %@", abs(latitude), latitude < 0 ? "S" : "N", abs(longitude), longitude < 0 ? "W" : "E")
            let text = try TestSupport.imgprep(["info", path])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.contains("GPSPosition:        \(expected)"), "\(text.stdout)")
            #expect(!text.stdout.contains("GPSLatitudeRef"), "\(text.stdout)")
            let object = try #require(try BatchTests.jsonLines(try TestSupport.imgprep(["info", "--json", path]).stdout).first)
            let gps = try #require(object["gps"] as? [String: Any], "\(object)")
            #expect(abs((gps["latitude"] as? Double ?? 0) - latitude) < 1e-6 && abs((gps["longitude"] as? Double ?? 0) - longitude) < 1e-6, "\(gps)")
            let exif = try #require(object["exif"] as? [String: Any])
            #expect(exif["GPSLatitude"] is String && exif["GPSLatitudeRef"] is String, "the raw values stay: \(exif)")
        }
    }

    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS)"))
    func infoNamesColourCodePointsAndSaysGridTilesOnlyForGrids() throws {
        let corpus = try #require(TestSupport.corpus)
        let hdr = try TestSupport.imgprep(["info", corpus.appendingPathComponent("heic/sdwebimage__TestHDR.heic").path])
        #expect(hdr.stdout.contains("colour:       nclx: BT.2020 / PQ"), "\(hdr.stdout)")
        let single = try TestSupport.imgprep(["info", corpus.appendingPathComponent("heic/libheif__example.heic").path])
        #expect(single.stdout.contains("colour:       none (viewers assume sRGB)") && !single.stdout.contains("grid"), "\(single.stdout)")
        // Its ftyp lists mif1 as the major brand and again as a compatible one: shown once.
        #expect(single.stdout.contains("format:       HEIF (brands 'mif1', 'heic', 'hevc')"), "\(single.stdout)")
        let grid = try TestSupport.imgprep(["info", corpus.appendingPathComponent("heic/pillow_heif__RGBA_10__29x100.heif").path])
        #expect(grid.stdout.contains("none on the grid or its tiles"), "\(grid.stdout)")
        let json = try TestSupport.imgprep(["info", "--json", corpus.appendingPathComponent("heic/sdwebimage__TestHDR.heic").path])
        let nclx = try #require(try BatchTests.jsonLines(json.stdout).first?["nclx"] as? [String: Any])
        #expect(nclx["name"] as? String == "BT.2020 / PQ" && nclx["primaries"] as? Int == 9 && nclx["transfer"] as? Int == 16)
    }

    // MARK: empty lists

    @Test func anEmptyListFromAPipeOrFilesFromIsNotAnError() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let piped = try TestSupport.imgprep(["convert", "-o", "out"], input: Data(), cwd: dir)
        #expect(piped.status == 0 && piped.stderr == "0 files\n", "\(piped.stderr)")
        try Data().write(to: dir.appendingPathComponent("empty.txt"))
        let list = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--files-from", "empty.txt", "-o", "out", "--json"], cwd: dir)
        #expect(list.status == 0, "\(list.stderr)")
        let summary = try #require(try BatchTests.jsonLines(list.stdout).last?["summary"] as? [String: Any])
        #expect(summary["converted"] as? Int == 0 && summary["failed"] as? Int == 0)
        let found = try TestSupport.run("sh", ["-c", "find . -name '*.nothing' -print0 | \"$0\" convert -0 -o out", TestSupport.binary], cwd: dir)
        #expect(found.status == 0, "\(found.stderr)")
        // No paths and no list at all (stdin is /dev/null here, as under cron) stays a usage error.
        #expect(try TestSupport.imgprep(["convert", "-o", "out"], cwd: dir).status == 2)
    }

    // MARK: --version, suggestions, --help

    @Test func versionNamesTheLibrariesInUse() throws {
        let run = try TestSupport.imgprep(["--version"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("imgprep ") == true)
        for library in ["libheif 1.", "libjpeg-turbo 2.", "libpng 1.", "libexif "] {
            #expect(lines.contains { $0.hasPrefix(library) }, "\(library) missing: \(run.stdout)")
        }
    }

    @Test func anUnknownOptionSuggestsTheNearestOne() throws {
        let run = try TestSupport.imgprep(["compress", gray, "--max-byte", "1MB"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("did you mean --max-bytes?"), "\(run.stderr)")
        let far = try TestSupport.imgprep(["convert", gray, "--zzzzzzzz"])
        #expect(far.status == 2 && !far.stderr.contains("did you mean"), "\(far.stderr)")
        let command = try TestSupport.imgprep(["convret", gray])
        #expect(command.status == 2 && command.stderr.contains("did you mean 'convert'?"), "\(command.stderr)")
    }

    @Test func helpListsEveryExitStatus() throws {
        for arguments in [["--help"], ["convert", "--help"], ["compress", "--help"]] {
            let help = try TestSupport.imgprep(arguments).stdout
            for status in ["0 ", "1 ", "2 ", "130 ", "143 "] {
                #expect(help.contains("\n  \(status)"), "\(arguments): exit status \(status)missing")
            }
        }
    }

    // MARK: error kinds

    /// Each failure's JSON line says what kind it is, one word a script can branch on.
    @Test func failuresCarryAnErrorKind() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "text".write(to: dir.appendingPathComponent("notes.heic"), atomically: true, encoding: .utf8)
        try BatchTests.copy("\(bad)/truncated.heic", to: dir.appendingPathComponent("truncated.heic").path)
        try BatchTests.copy(gray, to: dir.appendingPathComponent("a/x.heic").path)
        try BatchTests.copy(gray, to: dir.appendingPathComponent("b/x.heic").path)
        try BatchTests.copy(p3, to: dir.appendingPathComponent("big.heic").path)
        let run = try TestSupport.imgprep(["convert", "notes.heic", "truncated.heic", "missing.heic", "a/x.heic", "b/x.heic",
                                           "-o", "out", "--json"], cwd: dir)
        let kinds = Dictionary(try BatchTests.jsonLines(run.stdout).filter { $0["summary"] == nil }.map {
            (($0["input"] as? String) ?? "", ($0["error_kind"] as? String) ?? "none")
        }, uniquingKeysWith: { a, _ in a })
        #expect(kinds == ["notes.heic": "not_an_image", "truncated.heic": "corrupt", "missing.heic": "io",
                          "a/x.heic": "none", "b/x.heic": "output"], "\(kinds)")
        let tooLarge = try TestSupport.imgprep(["convert", "big.heic", "--max-pixels", "100", "-o", "out", "--json"], cwd: dir)
        #expect(try BatchTests.jsonLines(tooLarge.stdout).first?["error_kind"] as? String == "too_large")
        let doesNotFit = try TestSupport.imgprep(["compress", "--max-bytes", "3KB", "--no-downscale", "big.heic", "-o", "out", "--json"], cwd: dir)
        #expect(try BatchTests.jsonLines(doesNotFit.stdout).first?["error_kind"] as? String == "does_not_fit")
        // Every kind is a snake_case word; docs/behaviour.md lists them all.
        let behaviour = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/behaviour.md"), encoding: .utf8)
        for kind in ImagePrepError.Kind.allCases {
            #expect(kind.rawValue.allSatisfy { $0.isLowercase || $0 == "_" })
            #expect(behaviour.contains("`\(kind.rawValue)`"), "docs/behaviour.md does not list error kind \(kind.rawValue)")
        }
    }

    // MARK: budgets in the user's units, one line per failure

    @Test func budgetsAreEchoedInTheUnitsGiven() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "6KiB", p3, "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("does not fit 6 KiB at quality 40"), "\(run.stderr)")
        #expect(!run.stderr.contains("6.1 KB"))
    }

    @Test func verboseReportsAFailureOnce() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["convert", "-v", "\(bad)/truncated.heic", gray, "-o", dir.path])
        #expect(run.status == 1)
        let mentions = (run.stdout + run.stderr).components(separatedBy: "truncated.heic").count - 1
        #expect(mentions == 1, "stdout: \(run.stdout)\nstderr: \(run.stderr)")
        #expect(run.stdout.contains("gray.heic -> "), "the good file still gets its line: \(run.stdout)")
    }
}
