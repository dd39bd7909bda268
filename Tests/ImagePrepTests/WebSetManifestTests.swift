import Foundation
import Testing
@testable import ImagePrep

/// The manifest `convert --manifest` writes, end to end: its `<picture>` opened in headless Chromium, its
/// placeholder read by PyPI's thumbhash, a hostile caption kept as text, and shards joined by
/// `imgprep manifest merge` into exactly the single run's document.
@Suite(.enabled(if: BrowserCheck.available && ["convert", "exiftool"].allSatisfy(TestSupport.toolExists),
                "needs chromium, ImageMagick and exiftool"))
struct WebSetManifestTests {
    static let hostileCaption = #""><script>__imgprepInjected('caption')</script><img src=x onerror="__imgprepInjected('img')"> & 'q'"#

    /// Two photo-like JPEGs (one with a hostile XMP caption, one 4:3 and one 3:4) and a HEIC fixture.
    static func inputs(in directory: URL) throws -> [String] {
        var paths: [String] = []
        for (name, size, seed) in [("wide.jpg", "1400x1050", "3"), ("tall.jpg", "900x1200", "5")] {
            let path = directory.appendingPathComponent(name).path
            let made = try TestSupport.run("convert", ["-size", size, "-seed", seed, "plasma:", "-quality", "92", path])
            try #require(made.status == 0, "convert: \(made.stderr)")
            paths.append(path)
        }
        let tagged = try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-XMP-dc:Description=\(hostileCaption)", paths[0]])
        try #require(tagged.status == 0, "exiftool: \(tagged.stderr)")
        paths.append(TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path)
        return paths
    }

    static func convert(_ inputs: [String], manifest: URL, extra: [String] = [], cwd: URL? = nil) throws -> TestSupport.Run {
        try TestSupport.imgprep(["convert"] + inputs + ["--to", "avif,webp,jpeg", "--widths", "300,600,1200",
                                                       "-o", manifest.deletingLastPathComponent().appendingPathComponent("img").path,
                                                       "--manifest", manifest.path] + extra, cwd: cwd)
    }

    @Test func theBrowserChoosesAnAVIFOfAListedWidthAndEveryVariantDecodes() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = try Self.inputs(in: directory)
        let file = directory.appendingPathComponent("site/images.json")
        let run = try Self.convert(inputs, manifest: file)
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try Manifest.decode(TestSupport.bytes(file.path))
        #expect(Set(manifest.images.keys) == Set(inputs.map { ManifestSource($0) }))

        let wide = try #require(manifest.images[ManifestSource(inputs[0])])
        #expect(wide.alt == Self.hostileCaption)
        #expect((wide.width, wide.height) == (1400, 1050))
        #expect(wide.variants.map(\.width) == [300, 600, 1200, 300, 600, 1200, 300, 600, 1200])
        // The HEIC is 320 wide: 600 and 1200 are not made, its own width is.
        #expect(manifest.images[ManifestSource(inputs[2])]?.variants.map(\.width) == [300, 320, 300, 320, 300, 320])
        for entry in manifest.images.values {
            for variant in entry.variants {
                let bytes = try TestSupport.bytes(directory.appendingPathComponent("site").appendingPathComponent(variant.path).path)
                #expect(bytes.count == variant.bytes, "\(variant.path)")
            }
        }

        let widths = [360, 900]
        let reports = try BrowserCheck.run(manifestFile: file, widths: widths, pixelRatios: [1, 2])
        for report in reports {
            for frame in report.frames {
                #expect(frame.ran.isEmpty, "a caption ran as markup: \(frame.ran)")
                #expect(frame.others.isEmpty, "elements from a caption: \(frame.others)")
                for image in frame.entries {
                    let entry = try #require(manifest.images[ManifestSource(image.source)])
                    let avif = entry.variants.filter { $0.format == "avif" }
                    // sizes=100vw: the smallest candidate at least viewport x ratio wide, else the largest.
                    let need = Double(frame.requestedWidth) * report.devicePixelRatio
                    let expected = avif.first { Double($0.width) >= need } ?? avif.last
                    #expect(image.found && image.complete, "\(image)")
                    #expect(image.currentSrc == expected?.path, "\(frame.requestedWidth)@\(report.devicePixelRatio)x: \(image.currentSrc)")
                    #expect(image.alt == entry.alt)
                }
            }
            let listed = manifest.images.keys.sorted().flatMap { manifest.images[$0]?.variants ?? [] }
            #expect(report.variants.count == listed.count)
            for (variant, seen) in zip(listed, report.variants) {
                #expect(seen.path == variant.path && seen.naturalWidth == variant.width && seen.naturalHeight == variant.height,
                        "\(seen.path): \(seen.naturalWidth)x\(seen.naturalHeight) \(seen.problem)")
            }
        }
    }

    @Test(.enabled(if: PlaceholderReaders.python != nil, "no .venv-test with PyPI thumbhash (make testenv)"))
    func thePlaceholderAndColourMatchThePicture() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Left half red, right half blue, 3:2: the average is purple, the dominant colour one of the halves.
        let input = directory.appendingPathComponent("halves.png").path
        let made = try TestSupport.run("convert", ["-size", "300x400", "xc:#e01010", "-size", "300x400", "xc:#1020e0", "+append", input])
        try #require(made.status == 0, "\(made.stderr)")
        let file = directory.appendingPathComponent("site/images.json")
        let run = try Self.convert([input], manifest: file)
        #expect(run.status == 0, "\(run.stderr)")
        let entry = try #require(try Manifest.decode(TestSupport.bytes(file.path)).images[ManifestSource(input)])
        #expect(["#e01010", "#1020e0"].contains(entry.color), "\(entry.color)")
        let placeholder = try #require(entry.placeholder)
        #expect(placeholder.kind == .thumbhash)
        let read = try PlaceholderReaders.run("thumbhash-decode", placeholder.value)
        let average = try #require(read["average"] as? [Double])
        let aspect = try #require(read["aspect"] as? Double)
        #expect(abs(aspect - 1.5) < 0.15, "aspect \(aspect)")  // ThumbHash stores the aspect coarsely (1.6 here)
        #expect(abs(average[0] - 0.47) < 0.08 && abs(average[1] - 0.06) < 0.08 && abs(average[2] - 0.47) < 0.08, "\(average)")
    }

    @Test func shardsMergeIntoTheSingleRunsManifest() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Relative names, so each input's shard is fixed (a shard hashes the path as given, and a
        // temporary directory's absolute path would make the split a coin toss).
        let inputs = try Self.inputs(in: directory).map { path in
            let name = URL(fileURLWithPath: path).lastPathComponent
            if !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
                try FileManager.default.copyItem(atPath: path, toPath: directory.appendingPathComponent(name).path)
            }
            return name
        }
        let expected = (1...2).map { shard in
            inputs.filter { ShardSpec.shard(of: ShardSpec.key(for: InputPath(path: $0)), count: 2) == shard }.count
        }
        try #require(expected.allSatisfy { $0 > 0 }, "these names must split between the shards: \(expected)")
        let site = directory.appendingPathComponent("site")
        let single = site.appendingPathComponent("images.json")
        #expect(try Self.convert(inputs, manifest: single, cwd: directory).status == 0)
        var shards: [String] = []
        for shard in 1...2 {
            let file = site.appendingPathComponent("images-\(shard).json")
            let run = try Self.convert(inputs, manifest: file, extra: ["--shard", "\(shard)/2"], cwd: directory)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Manifest.decode(TestSupport.bytes(file.path)).images.count == expected[shard - 1])
            shards.append(file.path)
        }
        let merged = site.appendingPathComponent("merged.json")
        let merge = try TestSupport.imgprep(["manifest", "merge", "-o", merged.path] + shards)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try TestSupport.bytes(merged.path) == TestSupport.bytes(single.path))

        // From the cache the run writes the same document.
        let cache = directory.appendingPathComponent("cache").path
        let cold = site.appendingPathComponent("cold.json"), warm = site.appendingPathComponent("warm.json")
        #expect(try Self.convert(inputs, manifest: cold, extra: ["--cache", cache], cwd: directory).status == 0)
        let rerun = try Self.convert(inputs, manifest: warm, extra: ["--cache", cache, "--json"], cwd: directory)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("\"cached\":true"))
        #expect(try TestSupport.bytes(warm.path) == TestSupport.bytes(single.path))
    }

    @Test(arguments: ["--update", "--skip-existing"])
    func aManifestRefusesToSkipInputs(_ option: String) throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try Self.convert([TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path], manifest: directory.appendingPathComponent("m.json"),
                                   extra: [option])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--manifest describes every input"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("img").path))
    }
}
