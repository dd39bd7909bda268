import Foundation
import Testing
@testable import ImagePrep

/// `imgprep manifest merge`: exit statuses, what it writes, and what it says on standard error.
@Suite struct ManifestMergeCommandTests {
    private func write(_ manifest: Manifest, _ name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(manifest.encoded()).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func mergesShardsIntoTheSingleRunsBytes() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = ManifestTests.sample, keys = sample.keys.sorted()
        let a = try write(Manifest(images: sample.filter { $0.key == keys[0] || $0.key == keys[2] }), "a.json", in: dir)
        let b = try write(Manifest(images: sample.filter { $0.key == keys[1] || $0.key == keys[3] }), "b b.json", in: dir)
        let whole = Manifest(images: sample).encoded()

        let toStdout = try TestSupport.imgprep(["manifest", "merge", a, b])
        #expect(toStdout.status == 0, "\(toStdout.stderr)")
        #expect(toStdout.stderr.isEmpty)
        #expect(Array(toStdout.stdout.utf8) == whole)

        let out = dir.appendingPathComponent("out/site.json").path
        let toFile = try TestSupport.imgprep(["manifest", "merge", "-o", out, b, a])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(toFile.stdout.isEmpty && toFile.stderr.isEmpty)
        #expect(try TestSupport.bytes(out) == whole)
        // No temporary file left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path) == ["site.json"])
    }

    @Test func conflictingEntriesFailAndWriteNothing() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var changed = ManifestTests.sample["a.jpg"]!
        changed.alt = "another caption"
        let a = try write(Manifest(images: ManifestTests.sample), "a.json", in: dir)
        let b = try write(Manifest(images: ["a.jpg": changed]), "b.json", in: dir)
        let out = dir.appendingPathComponent("merged.json").path
        let run = try TestSupport.imgprep(["manifest", "merge", a, b, "-o", out])
        #expect(run.status == 1)
        #expect(run.stderr == "imgprep: \"a.jpg\" has different entries in \(a) and \(b): were they made with different options?\n", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aDocumentThatIsNotAManifestFailsNamingIt() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try write(Manifest(images: ManifestTests.sample), "good.json", in: dir)
        let bad = dir.appendingPathComponent("bad.json").path
        try Data(#"{"images": {"x.jpg": {"width": 1}}, "images": {}}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let run = try TestSupport.imgprep(["manifest", "merge", good, bad])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && run.stderr.hasPrefix("imgprep: \(bad): not a manifest"), "\(run.stderr)")

        let missing = try TestSupport.imgprep(["manifest", "merge", good, dir.appendingPathComponent("missing.json").path])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("imgprep: \(dir.appendingPathComponent("missing.json").path): "), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test func anOutputThatCannotBeWrittenFailsNamingIt() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try write(Manifest(images: ManifestTests.sample), "good.json", in: dir)
        // Its folder would have to be made inside a regular file.
        let out = URL(fileURLWithPath: good).appendingPathComponent("merged.json").path
        let run = try TestSupport.imgprep(["manifest", "merge", "-o", out, good])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("imgprep: \(out): ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(try TestSupport.bytes(good) == Manifest(images: ManifestTests.sample).encoded())
    }

    @Test(arguments: [
        (["manifest"], "manifest needs an action"),
        (["manifest", "join", "a.json"], "unknown manifest action 'join'"),
        (["manifest", "merge"], "manifest merge needs at least one manifest"),
        (["manifest", "merge", "--sizes", "50vw", "a.json"], "unknown option '--sizes' for 'manifest'"),
        (["manifest", "merge", "-o"], "option '-o' needs a value"),
    ] as [([String], String)])
    func usageErrorsExitTwo(arguments: [String], message: String) throws {
        let run = try TestSupport.imgprep(arguments)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("imgprep: \(message)"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func helpListsTheCommand() throws {
        let top = try TestSupport.imgprep(["--help"])
        #expect(top.stdout.contains("manifest  join the manifests"))
        let help = try TestSupport.imgprep(["manifest", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Usage: imgprep manifest merge [-o FILE] MANIFEST..."))
        #expect(help.stdout.contains("-o, --output FILE"))
    }
}
