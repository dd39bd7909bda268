import Foundation
import Testing

/// libjxl is opened at the first JPEG XL file, not at start (Sources/CJXL/LazyJXL.c): a batch without one
/// never loads it, in the main process or its workers, and a JPEG XL file still converts. glibc's loader
/// writes what each process opened to its own file (LD_DEBUG=files, LD_DEBUG_OUTPUT).
@Suite struct LazyLibjxlTests {
    @Test func aBatchWithoutJXLNeverOpensLibjxl() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = ["webp/exif-icc.webp", "gif/still.gif", "jxl/exif.jpg"].map { TestSupport.fixtures.appendingPathComponent($0).path }
        let (run, reports) = try TestSupport.loaderReports(["convert"] + inputs + ["--to", "png", "-o", directory.path, "-j", "2"], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(reports.count >= 3, "\(reports.count) loader reports")
        #expect(reports.allSatisfy { $0.contains("file=libwebp.so.7") }, "the loader did report")
        #expect(!reports.contains { $0.contains("libjxl") })
        #expect(!reports.contains { $0.contains("libhwy") })
    }

    @Test func aJXLFileOpensLibjxlAndConverts() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = TestSupport.fixtures.appendingPathComponent("jxl/lossy.jxl").path
        let output = directory.appendingPathComponent("out.png").path
        let (run, reports) = try TestSupport.loaderReports(["convert", input, "-o", output], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(reports.contains { $0.contains("file=libjxl.so.0.7") })
        let size = try TestSupport.run("exiftool", ["-s3", "-ImageSize", output]).stdout
        #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == "96x64")
    }

    /// `--version` and the cache key name libjxl's version, asked of the library once opened.
    @Test func versionNamesLibjxl() throws {
        let run = try TestSupport.imgprep(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("libjxl 0.7."), "\(run.stdout)")
    }
}
