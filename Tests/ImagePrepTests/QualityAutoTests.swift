import Foundation
import Testing
@testable import ImagePrep

/// `--quality auto`: every output, scored again here with `SSIMULACRA2.score`, reaches the target, and the
/// same picture one quality lower (encoded here through the library) does not; under a budget that cannot
/// hold the target, the budget wins with a warning; animations reach it in every frame. Nothing here
/// depends on the metric's values: only on the properties the search promises.
@Suite struct QualityAutoTests {
    /// A small photo-like PNG (the determinism tests' picture): smooth light, edges, grain.
    static let photo = Result { try DeterminismTests.photoLikePNG(width: 320, height: 240) }

    /// Decodes any file imgprep writes, the picture alone (every frame of an animation).
    static func decode(_ bytes: [UInt8]) throws -> DecodedPixels {
        let format = try FormatSniffer.sniff(bytes).get()
        return try format.reader.decoder.decode(bytes, options: DecodeOptions(maxPixels: 1 << 30, keepsAnimation: true)).content
    }

    /// The score of `output` (in the profile its decoder reports, as the search takes it) against an sRGB original.
    static func score(_ output: [UInt8], against original: PixelBuffer) throws -> Double {
        let format = try FormatSniffer.sniff(output).get()
        let decoded = try format.reader.decoder.decode(output, options: DecodeOptions(maxPixels: 1 << 30, keepsAnimation: true))
        return try SSIMULACRA2.score(original: original, originalProfile: nil, distorted: decoded.content.rgb(),
                                     distortedProfile: decoded.metadata.icc)
    }

    /// Runs convert with `--json` into a fresh directory: the file's JSON object, the summary's and the output's bytes.
    static func convert(_ input: String, _ options: [String], in dir: URL, command: String = "convert") throws
        -> (file: [String: Any], summary: [String: Any], output: [UInt8], stderr: String) {
        let out = dir.appendingPathComponent("out-\(UUID().uuidString)").path
        let run = try TestSupport.imgprep([command, input, "--json", "-o", out + "/"] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try BatchTests.jsonLines(run.stdout)
        let file = try #require(lines.first)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        let output = try #require(file["output"] as? String)
        return (file, summary, try TestSupport.bytes(output), run.stderr)
    }

    @Test(arguments: [(OutputFormat.jpeg, 80.0), (.webp, 80), (.avif, 75), (.heic, 80), (.jxl, 85)])
    func theOutputReachesTheTargetAndOneQualityLowerDoesNot(_ format: OutputFormat, _ target: Double) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try Self.photo.get()
        let input = dir.appendingPathComponent("photo.png").path
        try Data(png).write(to: URL(fileURLWithPath: input))
        let original = try Self.decode(png).rgb()
        // One chroma layout, so that "one quality lower" is one encode.
        let result = try Self.convert(input, ["--to", format.rawValue, "--quality", "auto", "--target-score", "\(target)",
                                              "--subsampling", "420"], in: dir)
        let quality = try #require(result.file["quality"] as? Int)
        let reported = try #require(result.file["score"] as? Double)
        let scored = try Self.score(result.output, against: original)
        #expect(scored >= target, "\(format) quality \(quality) scores \(scored), below \(target)")
        #expect(abs(scored - reported) < 0.01, "\(format): reported \(reported), scored \(scored)")
        #expect((result.file["scores"] as? Int ?? 0) >= 1)
        #expect(result.summary["lowest_score"] as? Double == reported)
        guard quality > 1 else { return }
        var settings = ConversionSettings()
        settings.format = format
        settings.quality = quality - 1
        settings.subsampling = .s420
        let lower = try ImagePipeline.prepare(png, settings: settings)
        let lowerScore = try Self.score(lower.bytes, against: original)
        #expect(lowerScore < target, "\(format): quality \(quality - 1) scores \(lowerScore) already, at least \(target)")
    }

    /// A picture large enough for a crop mosaic takes the search the mosaic aims: the output reaches the
    /// target, and the quality (setting) two below it does not, so it is the lowest or one above.
    @Test(arguments: [(OutputFormat.jpeg, 80.0), (.webp, 80), (.avif, 75), (.heic, 80), (.jxl, 85)])
    func aMosaicAimedAnswerIsTheLowestQualityOrOneAbove(_ format: OutputFormat, _ target: Double) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try DeterminismTests.photoLikePNG(width: 1024, height: 768)
        let input = dir.appendingPathComponent("photo.png").path
        try Data(png).write(to: URL(fileURLWithPath: input))
        let original = try Self.decode(png).rgb()
        #expect(ProbeMosaic(.rgb(original)) != nil, "the picture is too small for a mosaic: this test would not aim")
        let result = try Self.convert(input, ["--to", format.rawValue, "--quality", "auto", "--target-score", "\(target)",
                                              "--subsampling", "420"], in: dir)
        let quality = try #require(result.file["quality"] as? Int)
        let scored = try Self.score(result.output, against: original)
        #expect(scored >= target, "\(format) quality \(quality) scores \(scored), below \(target)")
        let setting = { (q: Int) in format.writer.traits.sizeModel?.sameSetting(as: q) ?? q...q }
        let twoBelow = setting(setting(quality).lowerBound - 1).lowerBound - 1
        guard twoBelow >= 1 else { return }
        var settings = ConversionSettings()
        settings.format = format
        settings.quality = twoBelow
        settings.subsampling = .s420
        let lower = try ImagePipeline.prepare(png, settings: settings)
        let lowerScore = try Self.score(lower.bytes, against: original)
        #expect(lowerScore < target, "\(format): quality \(twoBelow) scores \(lowerScore) already; \(quality) was written")
    }

    /// Every format's `--quality auto` output re-scored by the second reader (PyPI's independent port, within
    /// 3 points of the reference and of ours on photos: SSIMULACRA2SecondReaderTests): it too finds the target
    /// reached, to that tolerance.
    @Test(.enabled(if: SSIMULACRA2SecondReader.python != nil, "no PyPI ssimulacra2 in .venv-test (make testenv)"),
          arguments: ["jpeg", "webp", "avif", "heic", "jxl"])
    func theSecondReaderFindsTheTargetReached(_ format: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("photo.png").path
        try Data(try Self.photo.get()).write(to: URL(fileURLWithPath: input))
        let result = try Self.convert(input, ["--to", format, "--quality", "auto"], in: dir)
        let decoded = dir.appendingPathComponent("decoded.png").path
        try Data(PNGEncoder.encode(Self.decode(result.output).rgb(), metadata: ImageMetadata())).write(to: URL(fileURLWithPath: decoded))
        let theirs = try SSIMULACRA2SecondReader.score(input, decoded)
        #expect(theirs >= 80 - 3, "\(format): PyPI's port scores \(theirs), ours \(result.file["score"] ?? "?")")
    }

    /// A Display P3 picture with fine saturated detail in every lossy format: the score the search reports
    /// is the one `imgprep compare` gives (each side in its own profile), and it reaches the target below
    /// quality 100 (libjxl hands an XYB-coded picture back in sRGB: scored in the source's profile, it never
    /// reached 80 and quality 100 was written). AVIF gets there only in 4:4:4, searched when 4:2:0 cannot;
    /// lossy WebP, always 4:2:0, cannot (52.9 at quality 100), and says so.
    @Test(arguments: ["jpeg", "webp", "avif", "jxl"])
    func aWideGamutPictureIsScoredInEachSidesOwnProfile(_ format: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = TestSupport.fixtures.appendingPathComponent("ssimulacra2/p3.png").path
        let result = try Self.convert(input, ["--to", format, "--quality", "auto"], in: dir)
        let quality = try #require(result.file["quality"] as? Int)
        let reported = try #require(result.file["score"] as? Double)
        let compared = try ImageComparison.score(original: ImageComparison.decode(TestSupport.bytes(input)),
                                                 distorted: ImageComparison.decode(result.output))
        #expect(abs(compared - reported) < 0.01, "\(format): reported \(reported), compare gives \(compared)")
        if format == "webp" {
            #expect(quality == 100 && compared < 80)
            let warnings = result.file["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("below the target 80") }, "\(warnings)")
        } else {
            #expect(quality < 100, "\(format): quality \(quality)")
            #expect(compared >= 80, "\(format): compare gives \(compared)")
        }
    }

    /// Without --subsampling, JPEG tries 4:2:0 and 4:4:4 and writes the smaller at the target: never larger
    /// than either layout's own answer.
    @Test func bothChromaLayoutsAreTriedAndTheSmallerWritten() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("photo.png").path
        try Data(try Self.photo.get()).write(to: URL(fileURLWithPath: input))
        let options = ["--to", "jpeg", "--quality", "auto"]
        let either = try Self.convert(input, options, in: dir)
        let each = try ["420", "444"].map { try Self.convert(input, options + ["--subsampling", $0], in: dir).output.count }
        #expect(either.output.count == each.min(), "\(either.output.count) bytes, the layouts' own answers \(each)")
        #expect(try Self.score(either.output, against: Self.decode(Self.photo.get()).rgb()) >= 80)
    }

    /// Corpus photos at a reduced size, in every lossy format: each output reaches the default target
    /// against the picture as the lossless path writes it (the same resize, written as PNG).
    @Test(.enabled(if: TestSupport.corpus != nil, "needs ../shared/corpus"),
          arguments: ["jpeg", "webp", "avif"])
    func corpusPhotosReachTheTarget(_ format: String) throws {
        let corpus = try #require(TestSupport.corpus)
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["jpeg/immich__craft-beer.jpg", "jpeg/exiftool__Apple.jpg", "heic/immich__IMG_2682.heic"] {
            let input = corpus.appendingPathComponent(name).path
            let sized = ["--max-dimension", "384", "--color", "srgb", "--strip-metadata"]
            let lossless = try Self.convert(input, ["--to", "png"] + sized, in: dir)
            let auto = try Self.convert(input, ["--to", format, "--quality", "auto"] + sized, in: dir)
            let scored = try Self.score(auto.output, against: Self.decode(lossless.output).rgb())
            #expect(scored >= 80, "\(name) as \(format): \(scored)")
        }
    }

    /// The target cannot fit the budget: the budget search's answer is written, within the budget, with
    /// a warning that gives the score it reached.
    @Test func aBudgetTooSmallForTheTargetWinsWithAWarning() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try Self.photo.get()
        let input = dir.appendingPathComponent("photo.png").path
        try Data(png).write(to: URL(fileURLWithPath: input))
        var settings = ConversionSettings()
        settings.format = .jpeg
        settings.quality = 45
        let floorBytes = try ImagePipeline.prepare(png, settings: settings).bytes.count
        let budget = floorBytes * 12 / 10
        let result = try Self.convert(input, ["--max-bytes", "\(budget)", "--quality", "auto", "--target-score", "99",
                                              "--no-downscale"], in: dir, command: "compress")
        #expect(result.output.count <= budget)
        let warnings = result.file["warnings"] as? [String] ?? []
        let warning = try #require(warnings.first { $0.contains("the target score 99 does not fit") }, "\(warnings)")
        let reported = try #require(result.file["score"] as? Double)
        let scored = try Self.score(result.output, against: Self.decode(png).rgb())
        #expect(abs(scored - reported) < 0.01)
        #expect(scored < 99)
        #expect(warning.contains(String(format: "score %.1f", reported)), "\(warning)")
    }

    /// An animated WebP reaches the target in every frame: each source frame against the output's frame
    /// shown at the same time; the score reported is the lowest.
    @Test func everyFrameOfAnAnimationReachesTheTarget() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = TestSupport.fixtures.appendingPathComponent("gif/wave.gif").path
        let result = try Self.convert(input, ["--to", "webp", "--quality", "auto", "--target-score", "85"], in: dir)
        guard case .animation(let source) = try Self.decode(TestSupport.bytes(input)),
              case .animation(let written) = try Self.decode(result.output) else {
            Issue.record("not an animation")
            return
        }
        var lowest = Double.infinity
        for time in AnimationOutputTests.middles(source) {
            let score = try SSIMULACRA2.score(original: AnimationOutputTests.shown(source, at: time), originalProfile: nil,
                                              distorted: AnimationOutputTests.shown(written, at: time), distortedProfile: nil)
            #expect(score >= 85, "the frame at \(time) ms scores \(score)")
            lowest = min(lowest, score)
        }
        let reported = try #require(result.file["score"] as? Double)
        #expect(abs(reported - lowest) < 0.01, "reported \(reported), lowest frame \(lowest)")
    }

    /// PNG with `--quality auto`: the smallest palette that reaches the target, or, where 256 colours
    /// cannot (a photo at 95), the lossless file with the same pixels; either way the score is reported.
    @Test(arguments: [80.0, 95.0]) func pngWritesAPaletteOrTheLosslessFile(target: Double) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("photo.png").path
        try Data(try Self.photo.get()).write(to: URL(fileURLWithPath: input))
        let result = try Self.convert(input, ["--to", "png", "--quality", "auto", "--target-score", "\(Int(target))"], in: dir)
        let score = try #require(result.file["score"] as? Double)
        #expect(score >= target, "\(result.file)")
        let output = try #require(result.file["output"] as? String)
        if result.file["quality"] is NSNull {
            #expect(try PNGLosslessTests.referencePixels(output) == PNGLosslessTests.referencePixels(input), "the lossless file changed pixels")
        } else {
            #expect(PNGLosslessTests.layout(try TestSupport.bytes(output)).colorType == 3, "\(result.file)")
        }
    }

    @Test func theOptionsAreChecked() throws {
        for bad in [["--target-score", "20"], ["--target-score", "nan"], ["--target-score", "101"],
                    ["--quality", "80", "--target-score", "85"], ["--quality", "best"]] {
            let run = try TestSupport.imgprep(["convert", "x.png"] + bad)
            #expect(run.status == 2, "\(bad): \(run.stderr)")
        }
    }

    /// The score (and --to auto's candidates) come back from a worker process and from the output cache.
    @Test func theScoreSurvivesTheCache() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("photo.png").path
        try Data(try Self.photo.get()).write(to: URL(fileURLWithPath: input))
        let options = ["--to", "auto", "--quality", "auto", "--cache", dir.appendingPathComponent("cache").path]
        let first = try Self.convert(input, options, in: dir)
        let again = try Self.convert(input, options, in: dir)
        #expect(first.file["cached"] == nil && again.file["cached"] as? Bool == true)
        #expect(again.output == first.output)
        for key in ["score", "quality", "format"] {
            #expect("\(again.file[key] ?? "none")" == "\(first.file[key] ?? "none")", "\(key)")
        }
        #expect((again.file["candidates"] as? [Any])?.count == (first.file["candidates"] as? [Any])?.count)
        #expect(again.summary["lowest_score"] as? Double == first.file["score"] as? Double)
    }

    /// The target and the metric's version are in the settings, so in the cache key.
    @Test func theCacheKeyDiffersByTargetAndCarriesTheMetricVersion() throws {
        let input = try Self.photo.get()
        var settings = ConversionSettings()
        settings.scoreTarget = ScoreTarget(score: 80)
        let eighty = OutputReuse(settings: settings, cache: nil).key(for: input, settings: settings)
        settings.scoreTarget = ScoreTarget(score: 85)
        #expect(OutputReuse(settings: settings, cache: nil).key(for: input, settings: settings) != eighty)
        settings.scoreTarget = ScoreTarget(score: 80)
        settings.scoreTarget?.metric = SSIMULACRA2.version + "-next"
        #expect(OutputReuse(settings: settings, cache: nil).key(for: input, settings: settings) != eighty)
        settings.scoreTarget = nil
        #expect(OutputReuse(settings: settings, cache: nil).key(for: input, settings: settings) != eighty)
    }

    /// The search itself on a made-up monotone curve: optimal within one quality and cheap.
    @Test func theSearchFindsTheLowestQualityThatReachesTheTarget() {
        let model = ScoreModel(qualityAt80: 70, pointsPerQuality: 0.6)
        for (steepness, offset) in [(0.4, 50.0), (0.8, 20.0), (1.5, -40.0), (0.2, 70.0)] {
            let curve = { (q: Int) in min(100, offset + steepness * Double(q)) }
            let result = searchScore(floor: 1, ceiling: 100, target: 80, model: model) { q in ([UInt8](repeating: 0, count: q), curve(q)) }
            let lowest = (1...100).first { curve($0) >= 80 }
            #expect(result.reached == (lowest != nil))
            if let lowest { #expect(result.quality == lowest, "slope \(steepness)") }
            #expect(result.trials <= 6, "slope \(steepness): \(result.trials) trials")
        }
        // A target beyond the range: the ceiling, not reached.
        let flat = searchScore(floor: 1, ceiling: 100, target: 99, model: model) { q in ([], 50 + Double(q) / 10) }
        #expect(!flat.reached && flat.quality == 100)
    }

    /// The search aimed by a mosaic's curve (the whole picture scoring a few points below its mosaic, by an
    /// amount the search does not know): one trial when the mosaic's answer lands within a step of the
    /// target, two when it does not; the answer always reaches the target and is the lowest quality that
    /// does or one above it; a curve the mosaic got wrong still ends at the exact answer.
    @Test func aSearchAimedByTheMosaicSettlesInOneOrTwoTrials() {
        let model = ScoreModel(qualityAt80: 70, pointsPerQuality: 0.6)
        let mosaic = { (q: Int) in min(100, 20 + 0.8 * Double(q)) }
        // What the mosaic's own search measured: around its answer for the target plus 2 (78 reaches 82.4).
        let measured = Dictionary(uniqueKeysWithValues: [70, 76, 77, 78, 80].map { ($0, mosaic($0)) })
        let curve = MosaicCurve(scores: measured, typicalSlope: model.pointsPerQuality)
        for (offset, trialsAtMost) in [(2.2, 1), (2.0, 1), (1.0, 2), (3.5, 2), (6.0, 2), (-1.0, 2)] {
            let whole = { (q: Int) in mosaic(q) - offset }
            let lowest = (1...100).first { whole($0) >= 80 } ?? 100
            let result = searchScoreAimed(floor: 1, ceiling: 100, target: 80, model: model, curve: curve, start: 78) { q in
                ([UInt8](repeating: 0, count: q), whole(q))
            }
            #expect(result.reached && result.score >= 80, "offset \(offset)")
            #expect(result.quality == lowest || result.quality == lowest + 1, "offset \(offset): \(result.quality), lowest \(lowest)")
            #expect(result.trials <= trialsAtMost, "offset \(offset): \(result.trials) trials")
        }
        // A whole picture twice as steep as its mosaic: the exact search finishes what the curve could not.
        let steep = { (q: Int) in min(100, -40.5 + 1.6 * Double(q)) }
        let result = searchScoreAimed(floor: 1, ceiling: 100, target: 80, model: model, curve: curve, start: 78) { q in
            ([UInt8](repeating: 0, count: q), steep(q))
        }
        #expect(result.reached && result.quality == 76 && result.trials <= 5, "\(result.quality) in \(result.trials) trials")
        // A target the whole picture never reaches: the ceiling, not reached.
        let flat = searchScoreAimed(floor: 1, ceiling: 90, target: 80, model: model, curve: curve, start: 78) { q in
            ([], 50 + Double(q) / 10)
        }
        #expect(!flat.reached && flat.quality == 90)
    }
}
