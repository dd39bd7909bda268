import Foundation
import Testing
@testable import ImagePrep

/// Routine notices (a block the output format has no place for) are one line per kind at the end of a
/// run, per file with -v; warnings that change what the user gets stay on their file.
struct RoutineNoticeTests {
    @Test(.enabled(if: TestSupport.toolExists("exiftool"), "needs exiftool"))
    func iptcDroppedForWebPIsCountedUnlessVerbose() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, keyword) in [("a.jpg", "one"), ("b.jpg", "two")] {
            let path = dir.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("jxl/exif.jpg").path, toPath: path)
            #expect(try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-IPTC:Keywords=\(keyword)", path]).status == 0)
        }
        try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("bad/truncated.jpg").path,
                                         toPath: dir.appendingPathComponent("cut.jpg").path)
        let quiet = try TestSupport.imgprep(["convert", "a.jpg", "b.jpg", "cut.jpg", "--allow-truncated", "--to", "webp", "-o", "out"], cwd: dir)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        let lines = quiet.stderr.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.contains("a.jpg: warning: dropped the IPTC") || $0.contains("b.jpg: warning") }, "\(quiet.stderr)")
        #expect(lines.filter { $0.hasPrefix("imgprep: warning: IPTC data (Photoshop APP13 resources) dropped from 2 WEBP outputs") }.count == 1,
                "\(quiet.stderr)")
        // What changes the picture stays on its file.
        #expect(lines.contains { $0.hasPrefix("imgprep: cut.jpg: warning: the file ends early") }, "\(quiet.stderr)")
        let verbose = try TestSupport.imgprep(["convert", "-v", "a.jpg", "b.jpg", "--to", "webp", "-o", "out2"], cwd: dir)
        for name in ["a.jpg", "b.jpg"] {
            #expect(verbose.stderr.contains("imgprep: \(name): warning: dropped the IPTC data (Photoshop APP13 resources): WEBP has no place for it"), "\(verbose.stderr)")
        }
        #expect(!verbose.stderr.contains("dropped from 2"), "\(verbose.stderr)")
        // JSON keeps every warning on its file.
        let json = try TestSupport.imgprep(["convert", "--json", "a.jpg", "--to", "webp", "-o", "out3"], cwd: dir)
        let line = try #require(try BatchTests.jsonLines(json.stdout).first)
        #expect((line["warnings"] as? [String] ?? []).contains { $0.hasPrefix("dropped the IPTC data") }, "\(line)")
    }

    @Test func kindsOfWarnings() {
        #expect(RoutineNotice.isRoutine(RoutineNotice.noPlace(for: "comments", in: "WEBP")))
        #expect(RoutineNotice.isRoutine(RoutineNotice.unbackedGainMapClaims))
        #expect(!RoutineNotice.isRoutine("4284x5712 does not fit 1 MB at quality 40; wrote 3269x4358 at quality 40"))
        #expect(!RoutineNotice.isRoutine("dropped the HDR gain map to fit 1 MB: the picture comes first; wrote the SDR picture only"))
        #expect(RoutineNotice.summary(RoutineNotice.noPlace(for: "IPTC data", in: "WEBP"), count: 12).hasPrefix("IPTC data dropped from 12 WEBP outputs"))
    }
}
