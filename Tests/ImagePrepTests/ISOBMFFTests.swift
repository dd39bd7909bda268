import Testing
@testable import ImagePrep

/// Builds ISO base media boxes for tests (also used by HeifReferenceRepairTests).
enum BoxBuilder {
    static func bigEndian(_ value: UInt64, _ byteCount: Int) -> [UInt8] {
        (0..<byteCount).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian(UInt64(8 + payload.count), 4) + Array(type.utf8) + payload
    }

    /// A box whose size is in the 64-bit largesize field.
    static func largeBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bigEndian(1, 4) + Array(type.utf8) + bigEndian(UInt64(16 + payload.count), 8) + payload
    }

    static func fullBox(_ type: String, version: UInt8, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + bigEndian(UInt64(flags), 3) + payload)
    }

    static func ftyp(_ major: String, minor: UInt32 = 0, _ compatible: [String]) -> [UInt8] {
        box("ftyp", Array(major.utf8) + bigEndian(UInt64(minor), 4) + compatible.flatMap { Array($0.utf8) })
    }

    static func infe(id: UInt32, type: String, name: String = "", version: UInt8 = 2) -> [UInt8] {
        fullBox("infe", version: version, bigEndian(UInt64(id), version == 3 ? 4 : 2) + [0, 0] + Array(type.utf8)
                    + Array(name.utf8) + [0])
    }

    static func iinf(_ entries: [[UInt8]]) -> [UInt8] {
        fullBox("iinf", version: 0, bigEndian(UInt64(entries.count), 2) + entries.flatMap { $0 })
    }

    static func iref(version: UInt8, _ references: [ISOBMFF.Reference]) -> [UInt8] {
        let idSize = version == 0 ? 2 : 4
        return fullBox("iref", version: version, references.flatMap { reference in
            box(reference.type, bigEndian(UInt64(reference.from), idSize) + bigEndian(UInt64(reference.to.count), 2)
                    + reference.to.flatMap { bigEndian(UInt64($0), idSize) })
        })
    }

    /// ftyp, meta (hdlr, pitm, iinf, iref, then `extraMeta`), and a small mdat.
    static func heif(primary: UInt32, items: [(UInt32, String)], references: [ISOBMFF.Reference],
                     irefVersion: UInt8 = 0, extraMeta: [UInt8] = []) -> [UInt8] {
        let hdlr = fullBox("hdlr", version: 0, [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let pitm = fullBox("pitm", version: 0, bigEndian(UInt64(primary), 2))
        let iinf = iinf(items.map { infe(id: $0.0, type: $0.1, name: "item \($0.0)") })
        let meta = fullBox("meta", version: 0, hdlr + pitm + iinf + iref(version: irefVersion, references) + extraMeta)
        return ftyp("heic", ["mif1", "heic"]) + meta + box("mdat", [UInt8](repeating: 0xAB, count: 32))
    }
}

struct ISOBMFFTests {
    let sample = BoxBuilder.heif(
        primary: 1, items: [(1, "hvc1"), (2, "hvc1"), (3, "Exif"), (4, "tmap")],
        references: [.init(type: "auxl", from: 2, to: [1, 4]), .init(type: "cdsc", from: 3, to: [1]),
                     .init(type: "dimg", from: 4, to: [1, 2])])

    @Test func parsesFileTypeBrands() throws {
        let bytes = BoxBuilder.ftyp("avif", minor: 7, ["mif1", "miaf", "MA1B"])
        let box = try #require(ISOBMFF.topLevelBoxes(bytes).first)
        #expect(box.type == "ftyp" && box.size == bytes.count)
        #expect(ISOBMFF.fileType(box, in: bytes)
                    == ISOBMFF.FileType(majorBrand: "avif", minorVersion: 7, compatibleBrands: ["mif1", "miaf", "MA1B"]))
    }

    @Test func readsLargeSizeAndToEndBoxes() {
        // A 64-bit-size box, then a box whose size 0 means "to the end of the file".
        let bytes = BoxBuilder.largeBox("free", [1, 2, 3]) + BoxBuilder.bigEndian(0, 4) + Array("mdat".utf8) + [9, 9]
        let boxes = ISOBMFF.topLevelBoxes(bytes)
        #expect(boxes.map(\.type) == ["free", "mdat"])
        #expect(boxes[0].headerSize == 16 && boxes[0].payload == 16..<19)
        #expect(boxes[1].start == 19 && boxes[1].end == bytes.count)
    }

    @Test func stopsAtBoxesThatDoNotFit() {
        let tooSmall = BoxBuilder.bigEndian(4, 4) + Array("free".utf8)     // size smaller than its header
        let tooLarge = BoxBuilder.bigEndian(999, 4) + Array("free".utf8)   // runs past the end
        let hugeLarge = BoxBuilder.bigEndian(1, 4) + Array("free".utf8) + [UInt8](repeating: 0xFF, count: 8)
        for bytes in [tooSmall, tooLarge, hugeLarge, [0, 0, 0], []] {
            #expect(ISOBMFF.topLevelBoxes(bytes).isEmpty)
        }
    }

    @Test func findsMetaChildrenAfterTheFullBoxHeader() throws {
        let iref = try #require(ISOBMFF.find(["meta", "iref"], in: sample))
        #expect(ISOBMFF.children(of: try #require(ISOBMFF.find(["meta"], in: sample)), in: sample).map(\.type)
                    == ["hdlr", "pitm", "iinf", "iref"])
        #expect(iref.type == "iref")
        #expect(ISOBMFF.find(["meta", "iprp"], in: sample) == nil)
    }

    @Test func readsItemsOfInfeVersions2And3() throws {
        let iinf = BoxBuilder.iinf([BoxBuilder.infe(id: 7, type: "hvc1", name: "Color"),
                                    BoxBuilder.infe(id: 70_000, type: "Exif", version: 3)])
        let box = try #require(ISOBMFF.topLevelBoxes(iinf).first)
        #expect(ISOBMFF.items(box, in: iinf) == [.init(id: 7, type: "hvc1", name: "Color"),
                                                .init(id: 70_000, type: "Exif", name: "")])
    }

    @Test(arguments: [UInt8(0), 1])
    func readsReferencesOfBothVersions(version: UInt8) throws {
        let references: [ISOBMFF.Reference] = [.init(type: "dimg", from: 5, to: [1, 2, 3]),
                                               .init(type: "cdsc", from: 6, to: [5])]
        let bytes = BoxBuilder.iref(version: version, references)
        let box = try #require(ISOBMFF.topLevelBoxes(bytes).first)
        #expect(ISOBMFF.references(box, in: bytes) == .init(version: version, entries: references))
    }

    @Test func summarisesTheStructure() throws {
        let structure = try #require(HeifStructure(sample))
        #expect(structure.fileType.majorBrand == "heic")
        #expect(structure.primaryItemID == 1)
        #expect(structure.items.map(\.type) == ["hvc1", "hvc1", "Exif", "tmap"])
        #expect(structure.references.count == 3)
        #expect(structure.hasGainMap)
        #expect(structure.auxiliaryImageCount == 1)
        #expect(structure.summaryLines == ["items: 2 hvc1, 1 Exif, 1 tmap, primary item 1",
                                           "item references: 1 auxl, 1 cdsc, 1 dimg",
                                           "1 auxiliary image in the file", "HDR gain map present"])
    }

    @Test func findsAGainMapByItsAuxiliaryType() throws {
        // No tmap item: Apple's earlier gain maps are only marked by the auxC URN of the auxiliary image.
        let auxC = BoxBuilder.fullBox("auxC", version: 0, Array("urn:com:apple:photo:2020:aux:hdrgainmap".utf8) + [0])
        let ipco = BoxBuilder.box("ipco", BoxBuilder.box("free", []) + auxC)
        let ipma = BoxBuilder.fullBox("ipma", version: 0, BoxBuilder.bigEndian(1, 4) + [0, 2, 1, 0x82])  // item 2 → property 2
        let bytes = BoxBuilder.heif(primary: 1, items: [(1, "hvc1"), (2, "hvc1")],
                                    references: [.init(type: "auxl", from: 2, to: [1])],
                                    extraMeta: BoxBuilder.box("iprp", ipco + ipma))
        let structure = try #require(HeifStructure(bytes))
        #expect(structure.hasGainMap && structure.auxiliaryImageCount == 1)
        #expect(HeifStructure(BoxBuilder.heif(primary: 1, items: [(1, "hvc1")], references: []))?.hasGainMap == false)
    }

    @Test func rejectsNonISOBMFF() {
        #expect(HeifStructure(Array("<html><body>not an image</body></html>".utf8)) == nil)
        #expect(HeifStructure([]) == nil)
    }

    @Test func survivesTruncationAndRandomMutation() {
        for length in 0..<sample.count {
            let prefix = Array(sample.prefix(length))
            _ = HeifStructure(prefix)
            _ = repairedForLibheif115(prefix)
        }
        var random = SplitMix64(seed: 42)
        for _ in 0..<3000 {
            var bytes = sample
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] = Bool.random(using: &random) ? UInt8.random(in: 0...255, using: &random) : [0, 1, 0xFF][index % 3]
            }
            _ = HeifStructure(bytes)
            _ = HeifReferenceRepair.hasMultiTargetReferences(bytes)
            if let repaired = repairedForLibheif115(bytes) {
                #expect(repaired.bytes.count == bytes.count)
            }
        }
    }
}
