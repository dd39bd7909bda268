import Foundation
import Testing
@testable import ImagePrep

/// A HEIF whose `ispe` disagrees with the coded picture: libheif sizes the header from the box but
/// decodes what is coded. The resize is planned from the decoded picture, so the aspect stays and
/// --max-dimension holds, and the disagreement is named in a warning.
@Suite struct HeifHeaderSizeTests {
    /// gps-p3.heic (320x240) with its one `ispe` box claiming `width` x `height`.
    static func fixture(claiming width: UInt32, _ height: UInt32) throws -> [UInt8] {
        var file = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path)
        let ispe = Array("ispe".utf8)
        let hits = file.indices.dropLast(ispe.count).filter { Array(file[$0..<$0 + ispe.count]) == ispe }
        let at = try #require(hits.count == 1 ? hits.first : nil, "gps-p3.heic should hold one ispe box")
        // type, then version and flags (4 bytes), then the 32-bit width and height
        file.replaceSubrange(at + 8..<at + 16, with: HostileFiles.bigEndian(width) + HostileFiles.bigEndian(height))
        return file
    }

    /// gps-p3.heic with its primary's `colr` property (544 bytes) rewritten in place as a `clap` of
    /// `width` x `height` (centred): same box size, same property index, so nothing else moves.
    static func fixture(clap width: UInt32, _ height: UInt32) throws -> [UInt8] {
        var file = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path)
        let colr = Array("colr".utf8)
        let at = try #require(file.indices.dropLast(4).first { Array(file[$0..<$0 + 4]) == colr })
        let fields: [UInt32] = [width, 1, height, 1, 0, 1, 0, 1]   // width, height, horizontal and vertical offsets as N/D
        file.replaceSubrange(at..<at + 4 + 32, with: Array("clap".utf8) + fields.flatMap(HostileFiles.bigEndian))
        return file
    }

    @Test(arguments: [(240, 320), (32000, 10), (32, 24), (3200, 2400), (1, 1)] as [(UInt32, UInt32)])
    func resizeIsPlannedFromTheDecodedPicture(claimed: (UInt32, UInt32)) throws {
        let file = try Self.fixture(claiming: claimed.0, claimed.1)
        #expect(try HeifDecoder().header(of: file).width == Int(claimed.0), "libheif no longer sizes the header from ispe")
        var settings = ConversionSettings()
        settings.maxDimension = 100
        let prepared = try ImagePipeline.prepare(file, settings: settings)
        #expect(prepared.width == 100 && prepared.height == 75, "\(claimed) → \(prepared.width)x\(prepared.height)")
        #expect(prepared.warnings.contains { $0.contains("\(claimed.0)x\(claimed.1)") && $0.contains("decodes as 320x240") },
                "\(prepared.warnings)")

        // The same picture as from the honest file.
        let honest = try ImagePipeline.prepare(try Self.fixture(claiming: 320, 240), settings: settings)
        #expect(honest.warnings.isEmpty, "\(honest.warnings)")
        let a = try JPEGDecoder.decode(prepared.bytes), b = try JPEGDecoder.decode(honest.bytes)
        if a.width == b.width && a.height == b.height { #expect(TestSupport.psnr(a, b) > 45) }

        // Without a resize the output keeps the picture's own size.
        let full = try ImagePipeline.prepare(file, settings: ConversionSettings())
        #expect(full.width == 320 && full.height == 240)
    }

    @Test func aPictureLargerThanItsHeaderSaysStillMeetsThePixelCap() throws {
        var settings = ConversionSettings()
        settings.maxPixels = 10_000   // the header's 100x75 passes; the coded 320x240 does not
        #expect { try ImagePipeline.prepare(try Self.fixture(claiming: 100, 75), settings: settings) } throws: {
            ($0 as? ImagePrepError)?.kind == .tooLarge
        }
    }

    /// libheif refuses sizes over its limits with "Security limit exceeded", filed under memory
    /// allocation: a hostile or too-large file, not an I/O fault.
    @Test func libheifSecurityLimitIsTooLargeNotIO() throws {
        let file = try Self.fixture(claiming: 70000, 70000)
        #expect { try HeifDecoder().header(of: file) } throws: {
            let error = $0 as? ImagePrepError
            return error?.kind == .tooLarge && error?.description.contains("Security limit exceeded") == true
        }
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(file).write(to: dir.appendingPathComponent("huge.heic"))
        for command in [["info", "--json"], ["convert", "--json", "-o", "out"]] {
            let run = try TestSupport.imgprep(command + ["huge.heic"], cwd: dir)
            #expect(run.status == 1 && run.stdout.contains(#""error_kind":"too_large""#), "\(command): \(run.stdout)")
        }
    }

    /// info refuses what convert refuses from the header: a clap of 0x0 (no size) or of 2^31-1 squared.
    @Test(arguments: [(0, 0, "corrupt", "no size"), (2_147_483_647, 2_147_483_647, "corrupt", "larger than its 320x240"),
                      (321, 240, "corrupt", "larger than its 320x240")] as [(UInt32, UInt32, String, String)])
    func infoRefusesTheClapConvertRefuses(clap: (UInt32, UInt32, String, String)) throws {
        let file = try Self.fixture(clap: clap.0, clap.1)
        #expect(throws: ImagePrepError.self) { try ImageInspector.inspect(file) }
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(file).write(to: dir.appendingPathComponent("clap.heic"))
        for command in [["info", "--json"], ["convert", "--json", "-o", "out"]] {
            let run = try TestSupport.imgprep(command + ["clap.heic"], cwd: dir)
            #expect(run.status == 1 && run.stdout.contains("\"error_kind\":\"\(clap.2)\"") && run.stdout.contains(clap.3),
                    "\(command): \(run.stdout)")
        }
        // A clap inside the picture is fine for both.
        let inside = try Self.fixture(clap: 200, 100)
        #expect(try ImageInspector.inspect(inside).width == 200)
        #expect(try ImagePipeline.prepare(inside, settings: ConversionSettings()).width == 200)
    }
}
