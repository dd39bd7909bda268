import Foundation
import Testing
@testable import ImagePrep

/// Every file a run writes stays inside its output folder and lands on no input and on no other output
/// of the run: `--name` templates and input names that would climb out, a manifest named over an input,
/// a variant or the list, and a NUL-separated list read as lines.
@Suite struct OutputContainmentTests {
    static let fixture = TestSupport.fixtures.appendingPathComponent("ssimulacra2/alpha.png").path

    /// A scratch folder; `files` are copies of the fixture at those relative paths (bytes, so names that
    /// are not UTF-8 can be made).
    final class Scratch {
        let directory: URL
        init(_ files: [[UInt8]] = []) throws {
            directory = try TestSupport.temporaryDirectory()
            let picture = try TestSupport.bytes(OutputContainmentTests.fixture)
            for file in files { try write(picture, to: file) }
        }
        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// Writes `bytes` at the relative path `name` (its folders made), by the name's bytes.
        func write(_ bytes: [UInt8], to name: [UInt8]) throws {
            let full = RawPath.decode(Array(directory.path.utf8) + [UInt8(ascii: "/")] + name)
            try RawPath.createDirectories(RawPath.split(full).directory)
            let fd = RawPath.withCString(full) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
            try #require(fd >= 0)
            defer { close(fd) }
            #expect(FileDescriptorIO.writeAll(fd, bytes))
        }

        func run(_ arguments: [String], input: Data? = nil) throws -> TestSupport.Run {
            try TestSupport.imgprep(arguments, input: input, cwd: directory, environment: TestSupport.environment())
        }

        /// Every regular file below the scratch folder, relative to it, as bytes-faithful paths.
        func files() -> Set<String> {
            var found = Set<String>()
            func walk(_ relative: String) {
                let full = relative.isEmpty ? directory.path : directory.path + "/" + relative
                for name in RawPath.names(in: full) ?? [] {
                    let child = relative.isEmpty ? name : relative + "/" + name
                    if RawPath.isDirectory(full + "/" + name) { walk(child) } else { found.insert(child) }
                }
            }
            walk("")
            return found
        }

        /// The bytes of a file, by a bytes-faithful relative path.
        func bytes(_ relative: String) throws -> [UInt8] { try InputFile.read(directory.path + "/" + relative) }
    }

    static func oneLine(_ stderr: String, containing text: String) -> Bool {
        stderr.split(separator: "\n").filter { $0.contains(text) }.count == 1
    }

    // MARK: names that leave -o

    @Test(arguments: ["../{name}-{width}.{ext}", "{name}/../../x-{width}.{ext}", "a/../{name}-{width}.{ext}",
                      "{dir}/../{name}-{width}.{ext}", "..//{name}.{ext}"])
    func aTemplateThatClimbsOutIsAUsageErrorBeforeAnyWork(template: String) throws {
        let scratch = try Scratch([Array("src/a.png".utf8)])
        let before = scratch.files()
        let run = try scratch.run(["convert", "src/a.png", "--widths", "50", "--name", template, "-o", "out/sub"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains(".."), "\(run.stderr)")
        #expect(scratch.files() == before)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")))
    }

    /// `...png` has the stem `..`: with `{name}/…` its variants would go above `out`. That file fails with
    /// one line, the others are written, and the manifest lists only what stays inside `out`.
    @Test func anInputWhoseNameWouldClimbOutFailsAloneAndTheBatchGoesOn() throws {
        let scratch = try Scratch([Array("src/...png".utf8), Array("src/ok.png".utf8)])
        let before = scratch.files()
        let run = try scratch.run(["convert", "src/...png", "src/ok.png", "--to", "webp,jpeg", "--widths", "40,80",
                                   "--name", "{name}/{width}.{ext}", "-o", "out", "--manifest", "out/m.json"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(Self.oneLine(run.stderr, containing: "src/...png"), "\(run.stderr)")
        #expect(run.stderr.contains("leaves the output folder"), "\(run.stderr)")
        let written = scratch.files().subtracting(before)
        #expect(written == ["out/m.json", "out/ok/40.webp", "out/ok/80.webp", "out/ok/40.jpg", "out/ok/80.jpg"], "\(written)")
        let manifest = try Manifest.decode(scratch.bytes("out/m.json"))
        #expect(manifest.images.count == 1)
        for variant in manifest.images.values.flatMap(\.variants) {
            #expect(!SetNaming.climbsOut(variant.path), "\(variant.path)")
        }
        #expect(!manifest.images.values.contains { $0.html.contains("..") })
    }

    /// With `-r`, `{dir}` is empty at the tree's top: `{dir}/{name}/…` of a top-level `...png` climbs out;
    /// one in a subfolder would climb back into it. Both fail alone.
    @Test func aTreeWalkedWithRecursiveNeverWritesAboveTheOutputFolder() throws {
        let scratch = try Scratch([Array("tree/...png".utf8), Array("tree/sub/...png".utf8), Array("tree/sub/fine.png".utf8)])
        let before = scratch.files()
        let run = try scratch.run(["convert", "-r", "tree", "--widths", "40", "--name", "{dir}/{name}/{width}.{ext}", "-o", "out"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(Self.oneLine(run.stderr, containing: "tree/...png"), "\(run.stderr)")
        #expect(Self.oneLine(run.stderr, containing: "tree/sub/...png"), "\(run.stderr)")
        #expect(scratch.files().subtracting(before) == ["out/sub/fine/40.jpg"])
    }

    @Test func climbingIsAComponentNotTwoDots() {
        #expect(SetNaming.climbsOut("../a.jpg") && SetNaming.climbsOut("a/../../b.jpg") && SetNaming.climbsOut("a/.."))
        #expect(!SetNaming.climbsOut("..a.jpg") && !SetNaming.climbsOut("a../b.jpg") && !SetNaming.climbsOut("./a.jpg"))
        let naming = SetNaming(template: "{name}/{width}.{ext}", outputDirectory: "out")
        #expect(naming.escape(input: "src/...heic", root: nil, format: .jpeg) == "../{width}.jpg")
        #expect(naming.escape(input: "src/..heic", root: nil, format: .jpeg) == nil)
        #expect(naming.escape(input: "src/x.heic", root: nil, format: .jpeg) == nil)
    }

    // MARK: a manifest over an input or an output

    /// The input named in other spellings, through a linked folder, as a variant of the run, as the
    /// list, and as an image a `-r` walk takes: each refused before any work, nothing written or changed.
    @Test func aManifestOverAnInputAnOutputOrTheListIsAUsageError() throws {
        let scratch = try Scratch([Array("src/photo.png".utf8), Array("tree/in.png".utf8)])
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link"), withDestinationPath: "src")
        try Data("src/photo.png\n".utf8).write(to: URL(fileURLWithPath: scratch.path("list.txt")))
        let before = scratch.files()
        let original = try scratch.bytes("src/photo.png")
        let set = ["--to", "webp,jpeg", "--widths", "40,80", "-o", "out"]
        let cases: [(arguments: [String], says: String)] = [
            (["src/photo.png", "--manifest", "src/photo.png"], "is an input of this run"),
            (["src/photo.png", "--manifest", "./src//../src/photo.png"], "is an input of this run"),
            (["src/photo.png", "--manifest", scratch.path("src/photo.png")], "is an input of this run"),
            (["src/photo.png", "--manifest", "link/photo.png"], "is an input of this run"),
            (["link/photo.png", "--manifest", "src/photo.png"], "is an input of this run"),
            (["src/photo.png", "--manifest", "out/photo-80.webp"], "is where this run writes"),
            (["src/photo.png", "--manifest", "out//photo-40.jpg"], "is where this run writes"),
            (["--files-from", "list.txt", "--manifest", "list.txt"], "is the list of paths"),
            (["-r", "tree", "--manifest", "tree/in.png"], "-r finds"),
        ]
        for (arguments, says) in cases {
            let run = try scratch.run(["convert"] + arguments + set)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains(says), "\(arguments): \(run.stderr)")
        }
        #expect(scratch.files() == before)
        #expect(try scratch.bytes("src/photo.png") == original)
    }

    /// Inputs from a list are known only as it is read: a variant named like the manifest fails alone
    /// (the manifest is never replaced by a variant, nor a variant by it), and no output replaces the list.
    @Test func aListsInputsNeverLandOnTheManifestOrTheList() throws {
        let scratch = try Scratch([Array("src/photo.png".utf8), Array("src/other.png".utf8)])
        try Data("src/photo.png\nsrc/other.png\n".utf8).write(to: URL(fileURLWithPath: scratch.path("list.txt")))
        let run = try scratch.run(["convert", "--files-from", "list.txt", "--widths", "40", "-o", "out", "--manifest", "out/photo-40.jpg"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(Self.oneLine(run.stderr, containing: "src/photo.png") && run.stderr.contains("--manifest"), "\(run.stderr)")
        let manifest = try Manifest.decode(scratch.bytes("out/photo-40.jpg"))
        #expect(manifest.images.keys.sorted() == ["src/other.png"])
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/other-40.jpg")))

        try Data("src/photo.png\n".utf8).write(to: URL(fileURLWithPath: scratch.path("photo.jpg")))
        let overList = try scratch.run(["convert", "--files-from", "photo.jpg", "-o", "."])
        #expect(overList.status == 1, "\(overList.stderr)")
        #expect(overList.stderr.contains("would replace another input"), "\(overList.stderr)")
        #expect(try scratch.bytes("photo.jpg") == Array("src/photo.png\n".utf8))
    }

    // MARK: a NUL-separated list read as lines

    /// `find -print0` without `-0`: the whole list is one line holding NULs. It is refused with a hint,
    /// nothing is read or written; with `-0` the same list converts every file under its own name.
    @Test func aLineHoldingANulIsRefusedWithAHintToUseDashZero() throws {
        let scratch = try Scratch([Array("photos/a.png".utf8), Array("photos/b.png".utf8)])
        try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("jxl/exif.jpg").path,
                                         toPath: scratch.path("photos/c.jpg"))
        let list = Data("photos/a.png\0photos/b.png\0photos/c.jpg\0".utf8)
        let before = scratch.files()
        let run = try scratch.run(["convert", "--files-from", "-", "-o", "out", "--json"], input: list)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = try BatchTests.jsonLines(run.stdout).filter { $0["summary"] == nil }
        #expect(lines.count == 1, "\(run.stdout)")
        #expect(lines.first?["status"] as? String == "failed")
        #expect((lines.first?["error"] as? String)?.contains("-0") == true, "\(run.stdout)")
        #expect(!run.stdout.contains("\\u0000"), "\(run.stdout)")
        #expect(scratch.files() == before)

        // A NUL on one line of a newline list: that line is refused, the others are used.
        let mixed = try scratch.run(["convert", "--files-from", "-", "-o", "mixed"], input: Data("photos/a.png\nphotos/b.png\0photos/c.jpg\n".utf8))
        #expect(mixed.status == 1, "\(mixed.stderr)")
        #expect(Self.oneLine(mixed.stderr, containing: "NUL"), "\(mixed.stderr)")
        #expect(scratch.files().subtracting(before) == ["mixed/a.jpg"])

        let right = try scratch.run(["convert", "-0", "--files-from", "-", "-o", "out"], input: list)
        #expect(right.status == 0, "\(right.stderr)")
        #expect(try TestSupport.decode(scratch.path("out/c.jpg")).width == 160)
        #expect(try TestSupport.decode(scratch.path("out/a.jpg")).width == 128)
    }
}
