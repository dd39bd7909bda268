import Foundation
import Testing
@testable import ImagePrep

/// `compress`: never over budget, the highest quality that fits, few encodes, and the pass-through,
/// downscale and --no-downscale paths.
@Suite(.serialized) struct CompressTests {
    /// Device photos and camera-size JPEGs from the shared corpus (skipped when it is absent).
    static let corpusInputs: [String] = {
        guard let corpus = TestSupport.corpus else { return [] }
        let heic = ["immich__IMG_2682.heic", "immich__samsung-one-ui-6.heic", "libvips__Example1.heic",
                    "libvips__heic-orientation-6.heic", "libvips__oneplus-heic.heic", "nuke__img_751.heic",
                    "pillow_heif__aux_YCbCr.heic", "pillow_heif__cat.hif", "pillow_heif__pug.heic",
                    "pillow_heif__spatial_photo.heic", "pillow_heif__xiaomi.heic", "libvips__apple-heic-gainmap.heic"]
        let jpeg = ["immich__craft-beer.jpg", "immich__empty_gps.jpg", "libvips__ultra-hdr.jpg", "pillow__xmp_test.jpg",
                    "recurser__Landscape_6.jpg", "nuke__image-p3.jpg"]
        return heic.map { corpus.appendingPathComponent("heic/\($0)").path } + jpeg.map { corpus.appendingPathComponent("jpeg/\($0)").path }
    }()

    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS): corpus budgets not checked"))
    func corpusPhotosFitEveryBudgetAtTheOptimalQuality() throws {
        var encodes = 0, searches = 0, downscaledEncodes = 0, downscaledSearches = 0, probes = 0
        for path in Self.corpusInputs {
            let file = try TestSupport.bytes(path)
            for budget in [200_000, 500_000, 1_000_000] {
                var settings = ConversionSettings()
                settings.quality = 95
                settings.budget = ByteBudget(maxBytes: budget)
                let result = try ImagePipeline.prepare(file, settings: settings, scheduling: Scheduling(threads: 2))
                #expect(result.bytes.count <= budget, "\(path) at \(budget): \(result.bytes.count) bytes")
                if result.passedThrough || result.lossless { continue }
                // A JPEG input is never searched above its own quality, nor past its own size when it fit.
                let isJPEG = file.starts(with: [0xFF, 0xD8])
                let ceiling = isJPEG ? min(95, JPEGMarkers.estimatedQuality(of: file) ?? 95) : 95
                let limit = isJPEG && file.count <= budget ? file.count : budget
                #expect((result.quality ?? 0) <= ceiling && result.bytes.count <= limit, "\(path) at \(budget)")
                probes += result.probes
                let downscaled = result.warnings.contains { $0.contains("does not fit") }
                if downscaled {
                    downscaledEncodes += result.encodes
                    downscaledSearches += 1
                } else {
                    encodes += result.encodes
                    searches += 1
                }
                guard let quality = result.quality, quality < ceiling, !downscaled else { continue }
                // Optimal: the next quality up, same settings, is over the limit.
                var next = settings
                next.budget = nil
                next.quality = quality + 1
                next.subsampling = .s420  // what the search used (auto would pick 4:4:4 at 90+)
                next.keepsInputCoding = false  // an encode at that quality, not the source's coefficients
                let above = try ImagePipeline.prepare(file, settings: next)
                #expect(above.bytes.count > limit, "\(path) at \(budget): q\(quality + 1) also fits (\(above.bytes.count))")
            }
        }
        let average = Double(encodes) / Double(max(searches, 1))
        let downscaledAverage = Double(downscaledEncodes) / Double(max(downscaledSearches, 1))
        let overall = Double(encodes + downscaledEncodes) / Double(max(searches + downscaledSearches, 1))
        print("compress: \(String(format: "%.2f", overall)) trials per file over \(searches + downscaledSearches) searches: "
              + "\(String(format: "%.2f", average)) over \(searches) at full size, "
              + "\(String(format: "%.2f", downscaledAverage)) over \(downscaledSearches) that had to shrink; "
              + "plus \(String(format: "%.1f", Double(probes) / Double(max(searches + downscaledSearches, 1)))) probe encodes of a sixteenth of the picture")
        #expect(overall <= 3.5)
        #expect(downscaledAverage <= 4.5)
    }

    /// heif-convert 1.15 writes upright pixels and copies the HEIC's Orientation 6, so these JPEGs say
    /// "turn me" and imgprep turns them; ImageMagick keeps the pixels and the tag. Turned with the same
    /// tables, one of them landed two qualities below ImageMagick's.
    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS): nothing to compare with ImageMagick"),
          arguments: ["immich__samsung-one-ui-6.heic", "libvips__heic-orientation-6.heic"])
    func turnedJpegFitsAtLeastAsWellAsImageMagick(_ name: String) throws {
        let corpus = try #require(TestSupport.corpus)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("turned.jpg").path
        let make = try TestSupport.run("heif-convert", ["-q", "95", corpus.appendingPathComponent("heic/\(name)").path, source])
        #expect(make.status == 0, "\(make.stderr)")
        #expect(try TestSupport.exiftool(source)["IFD0:Orientation"] as? Int == 6)

        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1000000", source, "-o", dir.appendingPathComponent("out").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let ours = dir.appendingPathComponent("out/turned.jpg").path
        let theirs = dir.appendingPathComponent("magick.jpg").path
        #expect(try TestSupport.run("convert", [source, "-define", "jpeg:extent=1000000", theirs]).status == 0)
        func quality(_ path: String) throws -> Int {
            Int(try TestSupport.run("identify", ["-format", "%Q", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        let size = try FileManager.default.attributesOfItem(atPath: ours)[.size] as? Int ?? .max
        #expect(size <= 1_000_000)
        let (ourQuality, theirQuality) = (try quality(ours), try quality(theirs))
        #expect(ourQuality >= theirQuality, "\(name): q\(ourQuality) vs ImageMagick q\(theirQuality)")
        #expect(try TestSupport.exiftool(ours)["IFD0:Orientation"] as? Int == 1)
    }

    @Test func jpegAlreadyWithinBudgetIsLeftByteForByte() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("heic/gray.heic").path, "-o", dir.path])
        let source = dir.appendingPathComponent("gray.jpg")
        let before = try Data(contentsOf: source)
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", source.path, "-o", dir.appendingPathComponent("out").path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("out/gray.jpg")) == before)
        #expect(run.stdout.contains("\"unchanged\":true"), "\(run.stdout)")
    }

    @Test func tooBigAtMinQualityIsDownscaledAndSaysSo() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "6KB", source, "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let output = dir.appendingPathComponent("gps-p3.jpg").path
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0
        #expect(size <= 6000 && size > 0)
        #expect(run.stderr.contains("320x240 does not fit 6 KB at quality 40; wrote "), "\(run.stderr)")
        let exif = try TestSupport.exiftool(output)
        #expect((exif["File:ImageWidth"] as? Int ?? 999) < 320)
        #expect(exif["GPS:GPSLatitude"] != nil, "metadata kept while downscaling")
    }

    @Test func noDownscaleFailsAndWritesNothing() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "6KB", "--no-downscale", source, "-o", dir.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("does not fit 6 KB: the smallest is"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func stepSearchReportsTheQualityWritten() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "9KB", "--search", "step", "--step", "5", "--quality", "90",
                                           source, "-o", dir.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let quality = try #require(object["quality"] as? Int)
        #expect((90 - quality) % 5 == 0 || quality == 40)
        #expect((object["bytes"] as? Int ?? .max) <= 9000)
        #expect(object["encodes"] as? Int == (90 - quality) / 5 + 1)
    }

    @Test func inPlaceReplacesAtomicallyAndKeepsPermissions() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path, "--quality", "98", "-o", dir.path])
        let target = dir.appendingPathComponent("gps-p3.jpg").path
        chmod(target, 0o640)
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "8KB", "--in-place", target])
        #expect(run.status == 0, "\(run.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect((attributes[.size] as? Int ?? .max) <= 8000)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["gps-p3.jpg"])
    }

    @Test func inPlaceRefusesToWriteJpegIntoAHeic() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("x.heic").path
        try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("heic/gray.heic").path, toPath: target)
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", "--in-place", target])
        #expect(run.status == 1)
        #expect(run.stderr.contains("--in-place replaces JPEG or PNG files only; this is a HEIF image: use -o DIR"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before)
    }
}
