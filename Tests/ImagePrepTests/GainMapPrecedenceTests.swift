import Foundation
import Testing
@testable import ImagePrep

/// Where a map image states its values twice, a valid ISO 21496-1 block wins over the XMP (as ISO
/// 21496-1 and libultrahdr have it): the values read are the block's, what was passed over is named,
/// and the image does not leave byte for byte with statements that disagree.
struct GainMapPrecedenceTests {
    typealias Files = HostileGainMapFiles

    /// The ISO block with GainMapMax 3 (the XMP, when valid, says 2).
    static let isoMax3 = Files.isoPayload([(0, 1), (3, 1), (0, 1), (3, 1), (1, 1), (1, 64), (1, 64)])
    static let isoMax3Values = GainMapMetadata(gainMapMin: 0, gainMapMax: 3, gamma: 1, offsetSDR: 1.0 / 64, offsetHDR: 1.0 / 64,
                                               hdrCapacityMin: 0, hdrCapacityMax: 3)

    static func read(_ segments: [JPEGSegment]) throws -> GainMapReading {
        JPEGGainMapReader.read(try Files.ultraHDR(mapSegments: segments), primaryEXIF: nil, decodes: true)
    }

    @Test(arguments: [
        ("xmp-nan", [Files.xmpSegment(Files.mapXMP(replacing: ["GainMapMax": "NaN"])), Files.isoSegment(isoMax3)], "XMP is passed over"),
        ("xmp-disagrees", [Files.xmpSegment(Files.mapXMP()), Files.isoSegment(isoMax3)], "XMP states other values"),
        ("after-unparseable", [Files.xmpSegment(Files.mapXMP()), Files.isoSegment(Array(isoMax3.prefix(40))), Files.isoSegment(isoMax3)],
         "cannot be read is passed over"),
        ("trailing-bytes", [Files.isoSegment(isoMax3 + [7, 7, 7])], nil),
    ] as [(String, [JPEGSegment], String?)])
    func validISOBlockWins(name: String, segments: [JPEGSegment], warning: String?) throws {
        let reading = try Self.read(segments)
        #expect(reading.problem == nil, "\(name): \(reading.problem ?? "")")
        let map = try #require(reading.gainMap, "\(name): no map")
        #expect(map.metadata.agrees(with: Self.isoMax3Values), "\(name): \(map.metadata)")
        #expect(map.origin == .iso21496)
        #expect(!reading.statementsAreClean, "\(name): restated, not kept byte for byte")
        if let warning {
            #expect(reading.warnings.contains { $0.contains(warning) }, "\(name): \(reading.warnings)")
        }
    }

    @Test func aCleanPairIsKeptAsIs() throws {
        let reading = try Self.read([Files.xmpSegment(Files.mapXMP()), Files.isoSegment(Files.isoPayload(Files.validISOFractions))])
        #expect(reading.gainMap?.metadata.agrees(with: Files.validMetadata) == true)
        #expect(reading.statementsAreClean && reading.warnings.isEmpty, "\(reading.warnings)")
    }

    @Test func withoutAValidBlockAFailingOneIsTheProblem() throws {
        // libultrahdr reads the ISO block when there is one and refuses the file when it fails.
        let reading = try Self.read([Files.xmpSegment(Files.mapXMP()), Files.isoSegment(Array(Self.isoMax3.prefix(40)))])
        #expect(reading.gainMap == nil && reading.problem?.contains("cut short") == true, "\(reading.problem ?? "")")
        let two = try Self.read([Files.isoSegment(Self.isoMax3), Files.isoSegment(Files.isoPayload(Files.validISOFractions))])
        #expect(two.gainMap == nil && two.problem?.contains("different values") == true, "\(two.problem ?? "")")
    }
}
