import Foundation
import Testing

/// libheif is opened at the first HEIF file, not at start (Sources/CHeif/LazyHeif.c): a batch without
/// one never loads it, in the main process or in its workers, and a HEIC file still converts. glibc's
/// loader writes what each process opened to its own file (LD_DEBUG=files, LD_DEBUG_OUTPUT).
@Suite struct LazyLibheifTests {
    @Test func aBatchWithoutHEIFNeverOpensLibheif() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = ["webp/exif-icc.webp", "webp/lossless-alpha.webp", "gif/orbit.gif", "gif/still.gif"]
            .map { TestSupport.fixtures.appendingPathComponent($0).path }
        let (run, reports) = try TestSupport.loaderReports(["convert"] + inputs + ["--to", "jpeg", "-o", directory.path, "-j", "2"], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        // The main process and two workers, each of which opened libwebp (the loader did report).
        #expect(reports.count >= 3, "\(reports.count) loader reports")
        #expect(reports.allSatisfy { $0.contains("file=libwebp.so.7") })
        #expect(!reports.contains { $0.contains("libheif.so") })
        #expect(!reports.contains { $0.contains("libde265.so") })
    }

    @Test func aHEICFileOpensLibheifAndConverts() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        let output = directory.appendingPathComponent("out.jpg").path
        let (run, reports) = try TestSupport.loaderReports(["convert", input, "--to", "jpeg", "-o", output], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(reports.contains { $0.contains("file=libheif.so.1") })
        let size = try TestSupport.run("exiftool", ["-s3", "-ImageSize", output]).stdout
        #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == "320x240")
    }

    /// `--version` still names the decoders libheif brings in, found after it is opened.
    @Test func versionNamesTheLibrariesLibheifLoads() throws {
        let run = try TestSupport.imgprep(["--version"])
        #expect(run.status == 0)
        for library in ["libheif 1.", "libde265 1.", "dav1d 1.", "libaom v3.", "HEVC encoder x265"] {
            #expect(run.stdout.contains(library), "\(library) missing from:\n\(run.stdout)")
        }
        #expect(!run.stdout.contains("not loaded"))
    }
}
