import Foundation
import Testing
@testable import ImagePrep

/// A byte budget on an output that carries an HDR gain map: the picture comes first. The map's quality
/// follows the picture's down, and when even the floor does not fit with the map, the map is dropped
/// (with a warning) before the picture is shrunk.
struct GainMapBudgetTests {
    static let width = 768, height = 512

    /// A textured picture and a noisy quarter-size map: both cost real bytes.
    static func picture() -> PixelBuffer {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let noise = (x &* 7919 &+ y &* 104_729) % 64
                pixels += [UInt8(x * 180 / width + noise), UInt8(y * 180 / height + noise), UInt8(120 + noise)]
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
    }

    static func gainMap() -> GainMap {
        let (w, h) = (width / 4, height / 4)
        let samples = (0..<(w * h)).map { UInt8(($0 &* 2_654_435_761 >> 7) & 0xFF) }
        return GainMap(plane: GainMapPlane(width: w, height: h, pixels: samples),
                       metadata: GainMapMetadata(gainMapMin: 0, gainMapMax: 2, hdrCapacityMin: 0, hdrCapacityMax: 2),
                       origin: .appleAuxiliaryImage)
    }

    static func encode(budget: Int) throws -> PreparedImage {
        var settings = ConversionSettings()
        settings.format = .jpeg
        settings.quality = 90
        settings.budget = ByteBudget(maxBytes: budget)
        let base = OutputFormat.jpeg.writer.encoder(for: settings, context: EncoderContext(searching: true))
        let encoder = GainMapJPEGEncoder(base: base, gainMap: gainMap(), pictureSize: (width, height), threads: 1)
        return try OutputEncoding.encode(.rgb(picture()), with: encoder, metadata: ImageMetadata(), settings: settings, warnings: [])
    }

    @Test func theMapsQualityFollowsThePicturesDown() throws {
        let base = JPEGEncoder(settings: JPEGSettings())
        let atFloor = try base.encode(.rgb(Self.picture()), quality: 60, metadata: ImageMetadata()).count
        let prepared = try Self.encode(budget: atFloor + 40_000)
        let quality = try #require(prepared.quality)
        let map = try #require(UltraHDRContainer.written(in: prepared.bytes), "the map was kept")
        #expect(quality < UltraHDRContainer.mapQuality, "the budget lowers the picture: \(quality)")
        #expect(map.quality == quality, "map at \(map.quality), picture at \(quality)")
        #expect(prepared.bytes.count <= atFloor + 40_000 && prepared.width == Self.width)
    }

    @Test func theMapGoesBeforeThePictureShrinks() throws {
        // The picture alone fits at the floor, with the map (even at the floor's quality) it does not.
        let base = JPEGEncoder(settings: JPEGSettings())
        let alone = try base.encode(.rgb(Self.picture()), quality: 40, metadata: ImageMetadata()).count
        let map = try UltraHDRContainer.encodeMap(Self.gainMap(), quality: 40).count
        #expect(map > 2048, "the map costs real bytes: \(map)")
        let budget = alone + map / 2
        let prepared = try Self.encode(budget: budget)
        #expect(UltraHDRContainer.written(in: prepared.bytes) == nil, "the map was dropped")
        #expect(prepared.width == Self.width && prepared.height == Self.height, "not shrunk: \(prepared.width)x\(prepared.height)")
        #expect(prepared.bytes.count <= budget)
        #expect(prepared.warnings.contains { $0.hasPrefix("dropped the HDR gain map to fit") }, "\(prepared.warnings)")
        #expect(!prepared.warnings.contains { $0.contains("does not fit") }, "\(prepared.warnings)")
    }

    /// The iPhone photo: at 1 MB the map is dropped before the picture shrinks; at 2 MB it stays, at the
    /// picture's quality.
    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus: gain-map budget tests skipped"))
    func anAppleGainMapHEICUnderABudget() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func compress(_ budget: String, into folder: String) throws -> [String: Any] {
            let run = try TestSupport.imgprep(["compress", "--max-bytes", budget, GainMapTests.photo, "-o", dir.appendingPathComponent(folder).path, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            return try #require(try BatchTests.jsonLines(run.stdout).first)
        }
        let tight = try compress("1MB", into: "tight")
        #expect(tight["gain_map"] == nil, "\(tight)")
        #expect((tight["warnings"] as? [String] ?? []).contains { $0.hasPrefix("dropped the HDR gain map to fit 1 MB") }, "\(tight)")
        #expect((tight["bytes"] as? Int ?? .max) <= 1_000_000)
        let roomy = try compress("2MB", into: "roomy")
        let map = try #require(roomy["gain_map"] as? [String: Any], "\(roomy)")
        let quality = try #require(roomy["quality"] as? Int)
        #expect(map["quality"] as? Int == min(quality, UltraHDRContainer.mapQuality), "\(roomy)")
        #expect(roomy["width"] as? Int == 4284 && (roomy["bytes"] as? Int ?? .max) <= 2_000_000, "\(roomy)")
    }
}
