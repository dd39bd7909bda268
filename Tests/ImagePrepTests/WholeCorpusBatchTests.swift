import Foundation
import Testing
@testable import ImagePrep

/// The whole shared corpus (good, broken and fake files together) in one `-r` batch at `-j 2`.
@Suite(.enabled(if: TestSupport.corpus != nil, "no shared corpus: whole-corpus batch skipped"))
struct WholeCorpusBatchTests {
    /// Files outside broken/ that libheif 1.15 or libjpeg cannot read (see the MANIFEST): they must
    /// fail with a line, not convert.
    static let knownUnreadable: Set<String> = [
        "heic/libheif__lightning_mini.heif",               // compact 'mini' format (mif3)
        "heic/libheif__seq_seed.heif",                     // an image sequence with no still image
        "avif/libavif__clap_irot_imir_non_essential.avif", // libheif 1.15 mirrors 8-bit images only
        "jpeg/pillow__ultrahdr.jpg",                       // cut off right after its first SOS
    ]

    @Test func everyGoodFileConvertsEveryBadFileGetsOneLine() throws {
        let corpus = try #require(TestSupport.corpus)
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestSupport.imgprep(["convert", "-r", corpus.path, "-o", out.path, "-j", "2", "--json"])
        #expect(run.status == 1, "some corpus files are broken, so the status must say so")

        let objects = try run.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
        let summary = try #require(objects.last?["summary"] as? [String: Any])
        let files = objects.dropLast()
        #expect(summary["converted"] as? Int == files.filter { $0["status"] as? String == "ok" }.count)
        #expect(summary["failed"] as? Int == files.filter { $0["status"] as? String == "failed" }.count)

        let seen = Set(files.compactMap { ($0["input"] as? String).map { String($0.dropFirst(corpus.path.count + 1)) } })
        #expect(Self.knownUnreadable.isSubset(of: seen), "unreadable images skipped without a line: \(Self.knownUnreadable.subtracting(seen))")
        var converted = 0
        for file in files {
            let input = try #require(file["input"] as? String)
            let relative = String(input.dropFirst(corpus.path.count + 1))
            let status = file["status"] as? String
            if relative.hasPrefix("broken/") || Self.knownUnreadable.contains(relative) {
                if status == "failed" {
                    let error = file["error"] as? String ?? ""
                    #expect(!error.isEmpty && !error.contains("\n"), "\(relative): \(error)")
                }
                if Self.knownUnreadable.contains(relative) { #expect(status == "failed", "\(relative) should not convert") }
            } else {
                #expect(status == "ok", "\(relative): \(file["error"] ?? "")")
            }
            if status == "ok" {
                converted += 1
                let output = try #require(file["output"] as? String)
                let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
                #expect(size > 0, "\(output) missing or empty")
            }
        }
        #expect(converted > 80, "only \(converted) files converted")

        // Nothing but finished outputs: no temporary or empty files anywhere in the tree.
        let leftovers = FileManager.default.enumerator(atPath: out.path)?.compactMap { $0 as? String }
            .filter { $0.contains(".imgprep-") } ?? []
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }
}
