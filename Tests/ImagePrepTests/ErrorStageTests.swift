import Foundation
import Testing
@testable import ImagePrep

/// Every error that ends a file names the stage it failed in: on its stderr line
/// (`imgprep: NAME: STAGE: reason`) and as `error_stage` in JSON, from worker processes (the default) and
/// in-process (`IMGPREP_ISOLATION=off`) alike.
struct ErrorStageTests {
    let bad = TestSupport.fixtures.appendingPathComponent("bad").path

    /// What one run said about each failed file: its JSON `error_kind` and `error_stage`, and its stderr line
    /// from a second run without --json.
    struct Failure: Equatable, CustomStringConvertible {
        var kind: String
        var stage: String
        var line: String
        var description: String { "\(kind) at \(stage): \(line)" }
    }

    static func failures(_ arguments: [String], in dir: URL, isolation: Bool, binary: String = TestSupport.binary,
                         extraEnvironment: [String: String] = [:]) throws -> [String: Failure] {
        let environment = TestSupport.environment(adding: (isolation ? [:] : ["IMGPREP_ISOLATION": "off"])
            .merging(extraEnvironment) { $1 })
        let json = try TestSupport.run(binary, ["convert", "--json"] + arguments, cwd: dir, environment: environment)
        let plain = try TestSupport.run(binary, ["convert"] + arguments, cwd: dir, environment: environment)
        #expect(json.status == 1 && plain.status == 1, "\(json.stderr)\n\(plain.stderr)")
        var failures: [String: Failure] = [:]
        for line in try BatchTests.jsonLines(json.stdout) where line["status"] as? String == "failed" {
            let input = try #require(line["input"] as? String)
            let lines = plain.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("imgprep: \(input): ") }
            #expect(lines.count == 1, "\(input): \(plain.stderr)")
            failures[input] = Failure(kind: line["error_kind"] as? String ?? "none", stage: line["error_stage"] as? String ?? "none",
                                      line: lines.first ?? "")
        }
        // A file that did not fail has no stage.
        for line in try BatchTests.jsonLines(json.stdout) where line["status"] as? String == "ok" {
            #expect(line["error_stage"] is NSNull, "\(line)")
        }
        return failures
    }

    /// Expects `failure` to be of `kind`, at `stage`, with a stderr line that names the stage after the file.
    static func expect(_ failure: Failure?, _ kind: String, at stage: String, input: String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(failure?.kind == kind && failure?.stage == stage, "\(input): \(failure.map(\.description) ?? "did not fail")",
                sourceLocation: sourceLocation)
        #expect(failure?.line.hasPrefix("imgprep: \(input): \(stage): ") == true, "\(failure?.line ?? "")", sourceLocation: sourceLocation)
    }

    static func truncatedJPEG() throws -> [UInt8] {
        let jpeg = try JPEGEncoder().encode(CodecTestSupport.gradient(width: 96, height: 64), quality: 90, settings: JPEGSettings())
        return Array(jpeg.prefix(jpeg.count / 2))
    }

    @Test(arguments: [true, false])
    func inputsThatCannotBeReadOrDecodedFailAtSniffOrDecode(isolation: Bool) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not a picture".utf8).write(to: dir.appendingPathComponent("notes.heic"))
        try FileManager.default.copyItem(atPath: "\(bad)/truncated.heic", toPath: dir.appendingPathComponent("cut.heic").path)
        // The same bytes again: prepared once, and its failure is shared with the stage it had.
        try FileManager.default.copyItem(atPath: "\(bad)/truncated.heic", toPath: dir.appendingPathComponent("cut-again.heic").path)
        try Data(try Self.truncatedJPEG()).write(to: dir.appendingPathComponent("half.jpg"))
        let failures = try Self.failures(["notes.heic", "missing.heic", "cut.heic", "cut-again.heic", "half.jpg",
                                          "--to", "png", "-o", "out"], in: dir, isolation: isolation)
        #expect(failures.count == 5, "\(failures)")
        Self.expect(failures["notes.heic"], "not_an_image", at: "sniff", input: "notes.heic")
        Self.expect(failures["missing.heic"], "io", at: "read", input: "missing.heic")
        Self.expect(failures["cut.heic"], "corrupt", at: "decode", input: "cut.heic")
        Self.expect(failures["cut-again.heic"], "corrupt", at: "decode", input: "cut-again.heic")
        Self.expect(failures["half.jpg"], "corrupt", at: "decode", input: "half.jpg")
    }

    /// WebP holds at most 16383 pixels a side: a tall PNG decodes and fails in its encoder.
    @Test(arguments: [true, false])
    func aPictureTheEncoderRefusesFailsAtEncode(isolation: Bool) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try PNGEncoder.encode(CodecTestSupport.gradient(width: 2, height: WebPEncoder.maxDimension + 1), metadata: ImageMetadata())
        try Data(png).write(to: dir.appendingPathComponent("tall.png"))
        let failures = try Self.failures(["tall.png", "--to", "webp", "-o", "out"], in: dir, isolation: isolation)
        Self.expect(failures["tall.png"], "unsupported", at: "encode", input: "tall.png")
        #expect(failures["tall.png"]?.line.contains("16383") == true, "\(failures)")
    }

    /// An output directory under a regular file cannot be made (root or not): the file fails at write,
    /// and a second input claiming the same output fails at write before it is read.
    @Test(arguments: [true, false])
    func outputsThatCannotBeWrittenFailAtWrite(isolation: Bool) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gray = TestSupport.fixtures.appendingPathComponent("heic/gray.heic").path
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("b"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: gray, toPath: dir.appendingPathComponent("gray.heic").path)
        try FileManager.default.copyItem(atPath: gray, toPath: dir.appendingPathComponent("b/gray.heic").path)
        try Data("a file".utf8).write(to: dir.appendingPathComponent("plain.txt"))
        let failures = try Self.failures(["gray.heic", "b/gray.heic", "-o", "plain.txt/out"], in: dir, isolation: isolation)
        Self.expect(failures["gray.heic"], "io", at: "write", input: "gray.heic")
        Self.expect(failures["b/gray.heic"], "output", at: "write", input: "b/gray.heic")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["b", "gray.heic", "plain.txt"])
    }

    /// Orienting, resizing and converting colours work on pixels in memory and have no failure of their own;
    /// a timeout there (made with the test hook that stalls a stage) is reported in that stage.
    @Test(.enabled(if: TestSupport.hasTestHooks, "needs the test hooks (-D IMGPREP_TEST_HOOKS, as make test builds)"),
          arguments: ["orient", "resize", "colour", "encode"], [true, false])
    func aTimeoutNamesTheStageItStoppedIn(stage: String, isolation: Bool) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try PNGEncoder.encode(CodecTestSupport.gradient(width: 64, height: 48), metadata: ImageMetadata())
        try Data(png).write(to: dir.appendingPathComponent("small.png"))
        let failures = try Self.failures(["small.png", "--timeout", TestSupport.stallTimeout, "--max-dimension", "20", "--color", "srgb", "-o", "out"],
                                         in: dir, isolation: isolation, binary: TestSupport.hooksBinary,
                                         extraEnvironment: ["IMGPREP_TEST_STALL": "\(stage):\(png.count)"])
        Self.expect(failures["small.png"], "timeout", at: stage, input: "small.png")
    }

    /// A missing file is one line, worded alike by every command that reads files.
    @Test func aMissingFileIsTheSameLineInEveryCommand() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = "imgprep: photo.heic: read: no such file or directory"
        for arguments in [["convert", "photo.heic"], ["compress", "photo.heic", "--max-bytes", "100KB"], ["info", "photo.heic"],
                          ["compare", "photo.heic", "other.jpg"]] {
            let run = try TestSupport.imgprep(arguments, cwd: dir)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").map(String.init).contains(expected), "\(arguments): \(run.stderr)")
        }
    }

    @Test func infoNamesTheStageToo() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not a picture".utf8).write(to: dir.appendingPathComponent("notes.heic"))
        try FileManager.default.copyItem(atPath: "\(bad)/truncated.heic", toPath: dir.appendingPathComponent("cut.heic").path)
        let inputs = ["notes.heic", "missing.heic", "cut.heic"]
        let json = try TestSupport.imgprep(["info", "--json"] + inputs, cwd: dir)
        #expect(json.status == 1)
        let stages = Dictionary(try BatchTests.jsonLines(json.stdout).map {
            (($0["input"] as? String) ?? "", ($0["error_stage"] as? String) ?? "none")
        }, uniquingKeysWith: { first, _ in first })
        #expect(stages == ["notes.heic": "sniff", "missing.heic": "read", "cut.heic": "decode"], "\(json.stdout)")
        let plain = try TestSupport.imgprep(["info"] + inputs, cwd: dir)
        let lines = plain.stderr.split(separator: "\n").map(String.init)
        for (input, stage) in stages {
            #expect(lines.filter { $0.hasPrefix("imgprep: \(input): \(stage): ") }.count == 1, "\(input): \(plain.stderr)")
        }
    }

    /// The library itself: what `ImagePipeline.prepare` throws carries its stage, and a stage set nearer
    /// the failure is kept.
    @Test func thePipelineTagsWhatItThrows() throws {
        func stage(_ file: [UInt8], _ settings: ConversionSettings = ConversionSettings()) -> PipelineStage? {
            do {
                _ = try ImagePipeline.prepare(file, settings: settings)
                return nil
            } catch {
                return (error as? ImagePrepError)?.stage
            }
        }
        #expect(stage(Array("not a picture".utf8)) == .sniff)
        #expect(try stage(Self.truncatedJPEG()) == .decode)
        var webp = ConversionSettings()
        webp.format = .webp
        let tall = try PNGEncoder.encode(CodecTestSupport.gradient(width: 2, height: WebPEncoder.maxDimension + 1), metadata: ImageMetadata())
        #expect(stage(tall, webp) == .encode)
        #expect(ImagePrepError(.io, "x", stage: .write).at(.sniff).stage == .write)
        // A worker's failure reply keeps the stage across the process boundary.
        let reply = try JSONEncoder().encode(WorkerReply.failed(kind: .tooLarge, message: "m", stage: .decode))
        guard case .failed(let kind, _, let replied) = try JSONDecoder().decode(WorkerReply.self, from: reply) else {
            Issue.record("not a failure: \(String(decoding: reply, as: UTF8.self))")
            return
        }
        #expect(kind == .tooLarge && replied == .decode)
        #expect(PipelineStage.allCases.map(\.rawValue) == ["fetch", "read", "sniff", "decode", "orient", "resize", "colour", "encode", "write"])
    }
}
