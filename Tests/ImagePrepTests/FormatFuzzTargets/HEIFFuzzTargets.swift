import Foundation
@testable import ImagePrep

extension FuzzTarget {
    /// HEIF's box reader, its reference checks, the in-memory iref repair and the grid plan of the Y'CbCr path.
    static let isobmff = FuzzTarget("isobmff", maxLength: 131_072, run: fuzzISOBMFF)

    private static func fuzzISOBMFF(_ bytes: [UInt8]) {
        _ = HeifStructure(bytes)?.summaryLines
        for box in ISOBMFF.topLevelBoxes(bytes) { _ = ISOBMFF.children(of: box, in: bytes) }
        _ = HeifReferenceRepair.hasMultiTargetReferences(bytes)
        _ = try? HeifReferenceLoops.check(bytes)
        if let plan = HeifGridPlanes.plan(bytes) {
            precondition(plan.tiles.allSatisfy { $0.data.upperBound <= bytes.count }, "a tile's data lies outside the file")
        }
        if let repaired = repairedForLibheif115(bytes) {
            // Every offset in the file must stay valid: the repair never changes the size.
            precondition(repaired.bytes.count == bytes.count, "iref repair changed the file's size")
            _ = HeifStructure(repaired.bytes)
        }
    }
}
