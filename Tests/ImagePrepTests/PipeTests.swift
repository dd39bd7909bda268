import Foundation
import Testing
@testable import ImagePrep

/// One picture through pipes: `-` reads standard input, `-o -` writes standard output, with the same
/// bytes as the run on files; what cannot be one picture to standard output is a usage error.
struct PipeTests {
    static let heic = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path

    /// Runs `imgprep ARGUMENTS < input > output` in a shell (stdout as bytes, not text).
    static func piped(_ arguments: [String], from input: String, to output: String, in dir: URL) throws -> TestSupport.Run {
        let quoted = ([TestSupport.binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try TestSupport.run("sh", ["-c", "\(quoted) < '\(input)' > '\(output)'"], cwd: dir)
    }

    @Test(arguments: [["convert", "--to", "webp"], ["compress", "--max-bytes", "6KB"], ["convert", "--to", "jpeg", "--strip-location"]])
    func standardInToStandardOutGivesTheFileRunsBytes(command: [String]) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let format = command.contains("webp") ? "webp" : "jpg"
        let pipe = try Self.piped(command + ["-", "-o", "-"], from: Self.heic, to: "piped.\(format)", in: dir)
        #expect(pipe.status == 0, "\(pipe.stderr)")
        let file = try TestSupport.imgprep(command + [Self.heic, "-o", dir.appendingPathComponent("file.\(format)").path])
        #expect(file.status == 0, "\(file.stderr)")
        let piped = try TestSupport.bytes(dir.appendingPathComponent("piped.\(format)").path)
        let written = try TestSupport.bytes(dir.appendingPathComponent("file.\(format)").path)
        #expect(!piped.isEmpty && piped == written, "\(command)")
        // A file given by name also goes to standard output.
        let named = try Self.piped(command + [Self.heic, "-o", "-"], from: "/dev/null", to: "named.\(format)", in: dir)
        let namedBytes = try TestSupport.bytes(dir.appendingPathComponent("named.\(format)").path)
        #expect(named.status == 0 && namedBytes == piped, "\(named.stderr)")
    }

    @Test func aBudgetAndTheInputSizeCapHoldOnStandardInput() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fitted = try Self.piped(["compress", "--max-bytes", "6KB", "-", "-o", "-"], from: Self.heic, to: "out.jpg", in: dir)
        #expect(fitted.status == 0, "\(fitted.stderr)")
        let out = try TestSupport.bytes(dir.appendingPathComponent("out.jpg").path)
        #expect(!out.isEmpty && out.count <= 6000)
        let capped = try Self.piped(["convert", "--max-input-size", "1KB", "-", "-o", "-"], from: Self.heic, to: "none.jpg", in: dir)
        #expect(capped.status == 1 && capped.stderr.contains("imgprep: -: read: the input is over the --max-input-size limit"), "\(capped.stderr)")
        let none = try TestSupport.bytes(dir.appendingPathComponent("none.jpg").path)
        #expect(none.isEmpty)
    }

    /// Runs `COMMAND` in a shell on a pseudo-terminal (util-linux `script`), so what the shell leaves
    /// unredirected is a terminal; stdout is what the terminal showed.
    static func onATerminal(_ command: String, in dir: URL) throws -> TestSupport.Run {
        try TestSupport.run("script", ["-q", "-e", "-c", command, "/dev/null"], input: Data(), cwd: dir)
    }

    /// As gzip and zstd do: `-o -` to a terminal is refused before anything is read or written.
    @Test func standardOutputOnATerminalIsRefusedWithAHint() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let refused = try Self.onATerminal("'\(TestSupport.binary)' convert --to jpeg - -o - < '\(Self.heic)'", in: dir)
        #expect(refused.status == 2, "\(refused.stdout)")
        #expect(refused.stdout == "imgprep: -o - writes the picture's bytes to standard output, which is a terminal; redirect it (> out.jpg) or pipe it on (| next-command), or write a file with -o NAME; see 'imgprep convert --help'\r\n",
                "\(refused.stdout)")
        // The same run with standard output redirected, on the same terminal otherwise, writes the picture.
        let redirected = try Self.onATerminal("'\(TestSupport.binary)' convert --to jpeg - -o - < '\(Self.heic)' > out.jpg", in: dir)
        #expect(redirected.status == 0, "\(redirected.stdout)")
        #expect(try TestSupport.bytes(dir.appendingPathComponent("out.jpg").path).starts(with: [0xFF, 0xD8, 0xFF]))
    }

    /// `info -` and `compare - FILE` read standard input: the same report as for the file, named `-`.
    @Test func infoAndCompareReadStandardInput() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let quoted = "'\(TestSupport.binary)'"
        let piped = try TestSupport.run("sh", ["-c", "\(quoted) info - < '\(Self.heic)'"], cwd: dir)
        let named = try TestSupport.imgprep(["info", Self.heic])
        #expect(piped.status == 0 && named.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.hasPrefix("-:\n") && piped.stdout.contains("format:"), "\(piped.stdout)")
        #expect(piped.stdout.dropFirst(2) == named.stdout.dropFirst(Self.heic.count + 1))
        let jpeg = dir.appendingPathComponent("x.jpg").path
        #expect(try TestSupport.imgprep(["convert", "--to", "jpeg", Self.heic, "-o", jpeg]).status == 0)
        let scoredPiped = try TestSupport.run("sh", ["-c", "\(quoted) compare --json - '\(jpeg)' < '\(Self.heic)'"], cwd: dir)
        let scoredNamed = try TestSupport.imgprep(["compare", "--json", Self.heic, jpeg])
        #expect(scoredPiped.status == 0 && !scoredPiped.stdout.isEmpty && scoredPiped.stdout == scoredNamed.stdout, "\(scoredPiped.stderr)")
        // Standard input is read once; a terminal is refused before anything is read.
        let twice = try TestSupport.imgprep(["compare", "-", "-"], input: Data())
        #expect(twice.status == 2 && twice.stderr.contains("- (standard input) can be read once"), "\(twice.stderr)")
        let terminal = try Self.onATerminal("\(quoted) info -", in: dir)
        #expect(terminal.status == 2 && terminal.stdout.hasPrefix("imgprep: - reads the picture from standard input, which is a terminal; pipe a file in (< photo.heic); see 'imgprep info --help'"),
                "\(terminal.stdout)")
    }

    @Test func whatCannotBeOnePictureOnStandardOutputIsAUsageError() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [([String], String)] = [
            (["convert", Self.heic, Self.heic.replacingOccurrences(of: "gps-p3", with: "gray"), "-o", "-"], "2 inputs were given"),
            (["convert", "-r", dir.path, "-o", "-"], "-r searches directories"),
            (["convert", Self.heic, "--to", "webp,jpeg", "-o", "-"], "a set"),
            (["convert", Self.heic, "--json", "-o", "-"], "--json prints on standard output"),
            (["convert", "-", "-o", "out"], "add -o -"),
        ]
        for (arguments, message) in cases {
            let run = try TestSupport.imgprep(arguments, cwd: dir)
            #expect(run.status == 2 && run.stderr.contains(message) && run.stdout.isEmpty, "\(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path), "no directory named -")
    }
}
