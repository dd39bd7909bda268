import Foundation
import Testing

/// The reference, man page and completions are generated from the option tables: the committed copies
/// must match the binary, and the completions must complete.
@Suite struct CLIReferenceTests {
    @Test(arguments: [("--markdown", "docs/cli.md"), ("--man", "docs/imgprep.1")])
    func committedDocsMatchTheBinary(flag: String, path: String) throws {
        let run = try TestSupport.imgprep(["help", flag])
        #expect(run.status == 0, "\(run.stderr)")
        let committed = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent(path), encoding: .utf8)
        #expect(committed == run.stdout, "\(path) is out of date with the option tables: run `make docs` and commit it")
    }

    @Test func referenceNamesEveryOptionAndConflict() throws {
        let markdown = try TestSupport.imgprep(["help", "--markdown"]).stdout
        for option in ["`--to FORMAT`", "`-q, --quality N`", "`--skip-existing`", "`-o, --output DIR`"] {
            #expect(markdown.contains(option), "\(option) missing")
        }
        #expect(markdown.contains("`--update` with `--skip-existing`"))
        let man = try TestSupport.imgprep(["help", "--man"]).stdout
        #expect(man.contains(#".TH IMGPREP 1"#))
        #expect(man.contains(#"\fB\-\-max\-bytes\fR \fISIZE\fR"#))
    }

    @Test(.enabled(if: TestSupport.toolExists("groff"), "groff is not installed"))
    func manPageRendersWithoutWarnings() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("imgprep.1")
        try TestSupport.imgprep(["help", "--man"]).stdout.write(to: page, atomically: true, encoding: .utf8)
        let run = try TestSupport.run("groff", ["-man", "-Tutf8", "-ww", "-z", page.path])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    }

    /// Runs the generated bash completion function for `words` (the last one is being completed).
    private func bashComplete(_ words: [String], cwd: URL? = nil) throws -> [String] {
        let script = """
        source <("$0" completions bash)
        COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
        _imgprep
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let run = try TestSupport.run("bash", ["-c", script, TestSupport.binary] + words, cwd: cwd)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesFormatsAfterTo() throws {
        #expect(try bashComplete(["imgprep", "convert", "--to", ""]) == ["jpeg", "png", "webp", "jxl", "avif", "heic", "auto"])
        #expect(try bashComplete(["imgprep", "compress", "--to", ""]) == ["jpeg", "png", "webp", "jxl", "avif", "heic", "auto"])
        #expect(try bashComplete(["imgprep", "convert", "--to", "av"]) == ["avif"])
        // bash splits --to=web at '=' (COMP_WORDBREAKS).
        #expect(try bashComplete(["imgprep", "convert", "--to", "=", "we"]) == ["webp"])
        #expect(try bashComplete(["imgprep", "convert", "--color", ""]) == ["keep", "srgb"])
    }

    @Test func bashCompletesCommandsOptionsAndFiles() throws {
        #expect(try bashComplete(["imgprep", "co"]) == ["convert", "compress", "compare", "completions"])
        #expect(try bashComplete(["imgprep", "compress", "--max-b"]) == ["--max-bytes"])
        #expect(try bashComplete(["imgprep", "convert", "--quality", ""]) == ["auto"])   // or a number
        #expect(try bashComplete(["imgprep", "completions", ""]) == ["bash", "zsh", "fish"])
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("some dir"), withIntermediateDirectories: true)
        try Data().write(to: dir.appendingPathComponent("some photo.heic"))
        #expect(try bashComplete(["imgprep", "convert", "-q", "80", "some"], cwd: dir).sorted() == ["some dir", "some photo.heic"])
        #expect(try bashComplete(["imgprep", "convert", "--cache", "some"], cwd: dir) == ["some dir"])
    }

    @Test(.enabled(if: TestSupport.toolExists("fish"), "fish is not installed"))
    func fishCompletesFormatsAfterTo() throws {
        let script = #"source ($argv[1] completions fish | psub); complete -C "imgprep convert --to ""#
        let run = try TestSupport.run("fish", ["-c", script, TestSupport.binary])
        #expect(run.status == 0, "\(run.stderr)")
        let values = run.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(values.sorted() == ["auto", "avif", "heic", "jpeg", "jxl", "png", "webp"], "\(run.stdout)")
    }

    @Test(.enabled(if: TestSupport.toolExists("zsh"), "zsh is not installed"))
    func zshScriptParses() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("_imgprep")
        try TestSupport.imgprep(["completions", "zsh"]).stdout.write(to: script, atomically: true, encoding: .utf8)
        let run = try TestSupport.run("zsh", ["-n", script.path])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test(arguments: [["--update", "--skip-existing"], ["--skip-existing", "--update"], ["--json", "--quiet"], ["--quiet", "-v"]])
    func contradictoryFlagsAreAUsageErrorNamingBoth(flags: [String]) throws {
        let run = try TestSupport.imgprep(["convert", "a.heic", "-o", "/nonexistent/out"] + flags)
        #expect(run.status == 2)
        let names = flags.map { $0 == "-v" ? "--verbose" : $0 }
        #expect(names.allSatisfy { run.stderr.contains($0) } && run.stderr.contains("cannot be used together"), "\(run.stderr)")
        #expect(try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "a.heic"] + flags).status == 2)
    }

    @Test func unknownHelpTopicOrShellIsAUsageError() throws {
        let help = try TestSupport.imgprep(["help", "convet"])
        #expect(help.status == 2 && help.stderr.contains("did you mean 'convert'"), "\(help.stderr)")
        #expect(try TestSupport.imgprep(["completions"]).status == 2)
        #expect(try TestSupport.imgprep(["completions", "powershell"]).status == 2)
        let two = try TestSupport.imgprep(["completions", "bash", "zsh"])
        #expect(two.status == 2 && two.stdout.isEmpty && two.stderr.contains("one shell"), "\(two.stderr)")
        let topics = try TestSupport.imgprep(["help", "convert", "extra"])
        #expect(topics.status == 2 && topics.stdout.isEmpty && topics.stderr.contains("one topic"), "\(topics.stderr)")
        #expect(try TestSupport.imgprep(["help", "compress"]).stdout.contains("Not together: --update with --skip-existing"))
    }
}
