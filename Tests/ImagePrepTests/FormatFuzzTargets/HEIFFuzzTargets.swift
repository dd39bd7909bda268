import Foundation
@testable import ImagePrep

extension FuzzTarget {
    /// HEIF's box reader, its reference checks, the in-memory iref repair and the grid plan of the Y'CbCr path.
    static let isobmff = FuzzTarget("isobmff", maxLength: 131_072, run: fuzzISOBMFF)
    /// The Y'CbCr path's grid plan and tile decode (libde265): what it decodes is the size it planned.
    static let heicGrid = FuzzTarget("heic-grid", maxLength: 262_144, run: fuzzHEICGrid)

    private static func fuzzHEICGrid(_ bytes: [UInt8]) {
        guard let plan = HeifGridPlanes.plan(bytes) else { return }
        precondition(plan.tiles.allSatisfy { $0.data.upperBound <= bytes.count }, "a tile's data lies outside the file")
        precondition(plan.columns * plan.tileSize.width >= plan.size.width && (plan.columns - 1) * plan.tileSize.width < plan.size.width,
                     "the tiles do not cover the grid's width exactly")
        guard plan.size.width * plan.size.height <= 1 << 20 else { return }
        let upright = plan.turn.swapsDimensions ? (plan.size.height, plan.size.width) : plan.size
        guard let planes = try? HeifGridPlanes.decode(bytes, plan: plan, upright: upright, itemColour: nil, threads: 1) else { return }
        precondition((planes.width, planes.height) == upright, "the planes are not the planned size")
    }

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
