import Foundation
import Testing

/// ImagePrep as another package's dependency: Examples/UsingImagePrep (docs/library.md) is built by
/// SwiftPM the way its users build it, then converts a fixture and writes a folder's web image sets.
///
/// SwiftPM refuses unsafe flags (`-I…` in cSettings) only in a dependency required by version: a path or
/// branch dependency would build anyway. So the test copies the manifest and sources into a git
/// repository of its own, tags it, and builds a copy of the example that requires that tag.
@Suite struct LibraryDependencyTests {
    /// The toolchain's swift: PATH's, or where Debian's install puts it (as the Makefile looks).
    static let swift: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/swift" } + ["/opt/swift/usr/bin/swift"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    // A debug build of the whole library again (about 2 minutes on a busy 2-core machine), all of it in
    // a temporary folder: nothing is written into the repository.
    @Test(.enabled(if: swift != nil && TestSupport.toolExists("git"), "needs the swift toolchain and git"))
    func exampleBuildsAsAVersionedDependency() throws {
        let swift = try #require(Self.swift)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = FileManager.default
        let root = TestSupport.packageRoot

        // What a release of imgprep holds that SwiftPM reads: the manifest and the sources (the test target's
        // folder too, since the manifest names it).
        let release = dir.appendingPathComponent("imgprep")
        for item in ["Package.swift", "Sources", "Tests/ImagePrepTests"] {
            let copy = release.appendingPathComponent(item)
            try files.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try files.copyItem(at: root.appendingPathComponent(item), to: copy)
        }
        let git = ["-C", release.path, "-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "commit.gpgsign=false",
                   "-c", "tag.gpgsign=false"]
        for step in [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "release"], ["tag", "1.0.0"]] {
            let run = try TestSupport.run("git", git + step)
            try #require(run.status == 0, "git \(step.joined(separator: " ")): \(run.stderr)")
        }

        let example = dir.appendingPathComponent("example")
        try files.copyItem(at: root.appendingPathComponent("Examples/UsingImagePrep"), to: example)
        let manifest = example.appendingPathComponent("Package.swift")
        let local = #".package(name: "imgprep", path: "../..")"#
        let text = try String(contentsOf: manifest, encoding: .utf8)
        try #require(text.contains(local), "the example's manifest no longer says \(local)")
        try text.replacingOccurrences(of: local, with: #".package(url: "\#(release.absoluteString)", from: "1.0.0")"#)
            .write(to: manifest, atomically: true, encoding: .utf8)

        let scratch = dir.appendingPathComponent("build").path
        // Its caches in the scratch folder too, not in ~/.cache where other builds keep theirs.
        let build = try TestSupport.run(swift, ["build", "--package-path", example.path, "--scratch-path", scratch,
                                                "--manifest-cache", "local", "--disable-dependency-cache"])
        try #require(build.status == 0, "swift build of the example failed:\n\(build.stdout.suffix(3000))\n\(build.stderr.suffix(3000))")

        let program = "\(scratch)/debug/UsingImagePrep"
        let input = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        // (output, extra arguments, exiftool's FileType, format as printed, width, height)
        let cases = [("full.jpg", [String](), "JPEG", "jpeg", 320, 240), ("small.webp", ["100"], "Extended WEBP", "webp", 100, 75)]
        for (output, arguments, fileType, format, width, height) in cases {
            let path = dir.appendingPathComponent(output).path
            let run = try TestSupport.run(program, [input, path] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let tags = try TestSupport.exiftool(path)
            #expect(tags["File:FileType"] as? String == fileType, "\(output): \(tags["File:FileType"] ?? "not an image")")
            #expect(tags["Composite:ImageSize"] as? String == "\(width) \(height)", "\(output): \(tags["Composite:ImageSize"] ?? "no size")")
            #expect(tags["IFD0:Model"] as? String == "Fixture Cam 1", "\(output) lost the EXIF")
            let bytes = try TestSupport.bytes(path).count
            #expect(run.stdout == "\(path): \(format) \(width)x\(height), \(bytes) bytes\n")
        }

        // A batch: two pictures as sets of three formats, with a manifest naming every file (both are
        // narrower than 480, so each set has one width: a set never enlarges).
        let folder = dir.appendingPathComponent("photos"), web = dir.appendingPathComponent("web")
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["gps-p3.heic", "alpha.heic"] {
            try files.copyItem(at: TestSupport.fixtures.appendingPathComponent("heic/\(name)"), to: folder.appendingPathComponent(name))
        }
        let batch = try TestSupport.run("\(scratch)/debug/WebImages", [folder.path, web.path])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stdout.hasSuffix("2 converted, 0 failed\n"), "\(batch.stdout)")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: web.appendingPathComponent("images.json"))) as? [String: Any])
        let images = try #require(written["images"] as? [String: [String: Any]], "\(written.keys)")
        #expect(images.keys.sorted() == ["alpha.heic", "gps-p3.heic"])
        for (source, entry) in images {
            let variants = try #require(entry["variants"] as? [[String: Any]], "\(source)")
            #expect(variants.compactMap { $0["format"] as? String } == ["avif", "webp", "jpeg"], "\(source)")
            for variant in variants {
                let path = web.appendingPathComponent(try #require(variant["path"] as? String)).path
                let tags = try TestSupport.exiftool(path)
                let size = "\(variant["width"] as? Int ?? 0) \(variant["height"] as? Int ?? 0)"
                #expect(tags["Composite:ImageSize"] as? String == size, "\(path)")
                #expect(try TestSupport.bytes(path).count == variant["bytes"] as? Int, "\(path)")
            }
        }
    }

    /// docs/library.md quotes the example: each of its Swift blocks is part of one of the example's files,
    /// word for word, so the page shows code that compiles.
    @Test func libraryPageQuotesTheExample() throws {
        let root = TestSupport.packageRoot
        let page = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let blocks = page.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```").first ?? "" }
        #expect(blocks.count == 3)
        let example = try ["Package.swift", "Sources/UsingImagePrep/main.swift", "Sources/WebImages/main.swift"].map {
            try String(contentsOf: root.appendingPathComponent("Examples/UsingImagePrep/\($0)"), encoding: .utf8)
        }
        for block in blocks {
            #expect(example.contains { $0.contains(block) }, "not in Examples/UsingImagePrep word for word:\n\(block)")
        }
    }
}
