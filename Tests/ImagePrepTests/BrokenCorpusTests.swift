import Foundation
import Testing
@testable import ImagePrep

/// One batch over every file in corpus broken/ (fuzzer finds, truncated files, bad EXIF, other formats
/// named .heic) plus one good photo: nothing crashes, the good photo converts, every broken file either
/// converts to a real picture or gets exactly one readable error line, and no debris is left behind.
@Suite(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS or add ../shared/corpus): broken-corpus tests skipped"))
struct BrokenCorpusTests {
    @Test func batchOverBrokenFilesFailsCleanly() throws {
        let corpus = try #require(TestSupport.corpus)
        let brokenDir = corpus.appendingPathComponent("broken").path
        let broken = try FileManager.default.contentsOfDirectory(atPath: brokenDir).sorted().map { "\(brokenDir)/\($0)" }
        #expect(broken.count >= 30, "broken/ has only \(broken.count) files")
        let good = corpus.appendingPathComponent("heic/oiio__IMG_7702_small.heic").path

        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let start = Date()
        let run = try TestSupport.imgprep(["convert"] + broken + [good, "-j", "2", "-o", out.path])
        let seconds = Date().timeIntervalSince(start)

        // Exit status 1 (some failed), reached normally: the summary line is printed last.
        #expect(run.status == 1, "exit status \(run.status)\n\(run.stderr)")
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let summary = lines.last ?? ""
        #expect(summary.range(of: #"^\d+ converted, \d+ skipped, \d+ failed"#, options: .regularExpression) != nil,
                "no summary line: the batch did not finish normally\n\(run.stderr)")

        // Every stderr line is ours: no raw library noise (libjpeg/libpng/libheif print multi-line text).
        let stray = lines.dropLast().filter { !$0.hasPrefix("imgprep: ") }
        #expect(stray.isEmpty, "stderr lines not from imgprep:\n\(stray.joined(separator: "\n"))")

        // The good photo converts.
        let goodOutput = CorpusSupport.outputPath(good, in: out, ext: "jpg")
        let goodImage = try? TestSupport.decode(goodOutput)
        #expect(goodImage?.width == 512 && goodImage?.height == 300, "the good file did not convert")
        #expect(!lines.contains { $0.hasPrefix("imgprep: \(good): ") && !$0.contains(": warning: ") })

        var converted: [String] = [], failed: [String] = [], expectedOutputs: Set<String> = [goodOutput]
        for input in broken {
            let name = (input as NSString).lastPathComponent
            let output = CorpusSupport.outputPath(input, in: out, ext: "jpg")
            let mine = lines.filter { $0.hasPrefix("imgprep: \(input): ") }
            let errors = mine.filter { !$0.hasPrefix("imgprep: \(input): warning: ") }
            let warnings = mine.filter { $0.hasPrefix("imgprep: \(input): warning: ") }
            if FileManager.default.fileExists(atPath: output) && errors.isEmpty {
                expectedOutputs.insert(output)
                do {
                    let image = try TestSupport.decode(output)
                    #expect(!BrokenCorpusTests.bottomIsGrey(image), "\(name): bottom rows are uniform grey (a half-decoded picture)")
                    converted.append("\(name) → \(image.width)x\(image.height)"
                                     + (warnings.isEmpty ? "" : " [" + warnings.map { String($0.dropFirst("imgprep: \(input): ".count)) }.joined(separator: "; ") + "]"))
                } catch {
                    Issue.record("\(name): output does not decode: \(error)")
                }
            } else {
                #expect(errors.count == 1, "\(name): \(errors.count) error lines:\n\(mine.joined(separator: "\n"))")
                let reason = errors.first.map { String($0.dropFirst("imgprep: \(input): ".count)) } ?? ""
                #expect(!reason.trimmingCharacters(in: .whitespaces).isEmpty, "\(name): empty reason")
                // A sentence, not a Swift error dump or a control-character mess.
                #expect(!reason.contains("Error Domain=") && !reason.contains("ImagePrepError(")
                        && reason.unicodeScalars.allSatisfy { $0.value >= 0x20 } && reason.count < 300, "\(name): \(reason)")
                failed.append("\(name): \(reason)")
            }
        }

        // Nothing in the output directory but finished outputs: no temp files, no empty files.
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path)
        for name in left {
            let path = out.appendingPathComponent(name).path
            #expect(!name.contains(".imgprep-"), "temporary file left: \(name)")
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size > 0, "zero-byte file left: \(name)")
            #expect(expectedOutputs.contains(path), "unexpected file in the output directory: \(name)")
        }
        #expect(summary.hasPrefix("\(converted.count + 1) converted, 0 skipped, \(failed.count) failed"), "\(summary)")

        print("BrokenCorpusTests: \(broken.count) broken files + 1 good in \(String(format: "%.1f", seconds)) s")
        print("converted (\(converted.count)):\n  " + converted.joined(separator: "\n  "))
        print("failed (\(failed.count)):\n  " + failed.joined(separator: "\n  "))
    }

    /// The two corrupted pillow_heif files share a name (.heic / .hif) and so collide in one batch;
    /// the .hif on its own must fail with one readable line too, leaving nothing behind.
    @Test(.enabled(if: CorpusSupport.path("broken/pillow_heif__corrupted.hif") != nil, "broken/pillow_heif__corrupted.hif is not in the corpus"))
    func corruptedHifAloneFailsCleanly() throws {
        let source = try #require(CorpusSupport.path("broken/pillow_heif__corrupted.hif"))
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", source, "-o", out.path])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("imgprep: \(source): ") }
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    /// True when the bottom eighth of the picture is one flat mid grey, what libjpeg leaves where a
    /// truncated file ran out of data.
    static func bottomIsGrey(_ image: PixelBuffer) -> Bool {
        let rows = max(1, image.height / 8)
        for y in (image.height - rows)..<image.height {
            for x in 0..<image.width {
                let i = (y * image.width + x) * image.channels
                for c in 0..<3 where abs(Int(image.pixels[i + c]) - 128) > 2 { return false }
            }
        }
        return true
    }
}
