import Foundation
import Testing
@testable import ImagePrep

/// libheif 1.15 aborts the process on a derived image that is its own source; such files are refused first.
@Suite struct HeifReferenceLoopsTests {
    /// ftyp + meta holding only an iref box (version 0) with `entries` (type, from, to).
    static func file(_ entries: [(String, UInt16, [UInt16])], sizeField: ((Int) -> UInt32)? = nil) -> [UInt8] {
        let payload = entries.flatMap { type, from, to -> [UInt8] in
            let size = 12 + 2 * to.count
            return HostileFiles.bigEndian(sizeField?(size) ?? UInt32(size)) + Array(type.utf8)
                + HostileFiles.bigEndian16(from) + HostileFiles.bigEndian16(UInt16(to.count)) + to.flatMap(HostileFiles.bigEndian16)
        }
        return HostileFiles.heicFileType + HostileFiles.fullBox("meta", HostileFiles.fullBox("iref", payload))
    }

    static func problem(_ file: [UInt8]) -> String? {
        do {
            try HeifReferenceLoops.check(file)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func loopsAreRefused() {
        #expect(Self.problem(Self.file([("dimg", 2, [2])]))?.contains("item 2 refers to itself") == true)
        #expect(Self.problem(Self.file([("dimg", 1, [2]), ("dimg", 2, [3]), ("dimg", 3, [1])]))?.contains("loop through items 1, 2, 3") == true)
        // Item 2 is the alpha image of its own tile 1.
        #expect(Self.problem(Self.file([("dimg", 2, [1]), ("auxl", 2, [1])])) != nil)
        // A loop hidden from a parser that trusts entry sizes: libheif reads field by field.
        #expect(Self.problem(Self.file([("dimg", 2, [2])], sizeField: { _ in 0 })) != nil)
    }

    @Test func sharedSourcesAndOtherReferencesAreFine() {
        // A grid of 4 tiles with a thumbnail, EXIF (cdsc) and an alpha image: no loop.
        #expect(Self.problem(Self.file([("dimg", 10, [1, 2, 3, 4]), ("thmb", 11, [10]), ("cdsc", 12, [10]), ("auxl", 13, [10]),
                                        ("dimg", 14, [1, 1, 2])])) == nil)
        // thmb and cdsc pointing back are never followed while decoding.
        #expect(Self.problem(Self.file([("thmb", 1, [1]), ("cdsc", 2, [2])])) == nil)
        for name in ["gray", "10bit", "alpha", "gps-p3", "orientation-6"] {
            let fixture = TestSupport.fixtures.appendingPathComponent("heic/\(name).heic").path
            #expect(Self.problem((try? TestSupport.bytes(fixture)) ?? []) == nil, "\(name)")
        }
    }

    @Test func chainsDeeperThanAnyRealFileAreRefused() {
        func chain(_ length: Int) -> [UInt8] {
            // Item k is derived from k - 1: the search starts at the chain's end, so the depth must add
            // up over items it has already finished.
            Self.file((1..<UInt16(length)).map { ("dimg", $0 + 1, [$0]) })
        }
        #expect(Self.problem(chain(HeifReferenceLoops.maxDepth)) == nil)
        #expect(Self.problem(chain(HeifReferenceLoops.maxDepth + 1))?.contains("nest more than") == true)
        #expect(Self.problem(chain(5000))?.contains("nest more than") == true)
    }

    /// The fixture grid image (item 2, tile 1) edited to name itself as its tile: libheif 1.15 aborted.
    static func selfReferencingGrid() throws -> [UInt8] {
        var bytes = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("heic/gray.heic").path)
        let dimg = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("dimg".utf8)) })
        try #require(bytes[dimg + 4..<dimg + 10].elementsEqual([0, 2, 0, 1, 0, 1]))   // from 2, 1 target: 1
        bytes[dimg + 9] = 2
        return bytes
    }

    @Test func selfReferencingGridFailsOneFileFromTheCommandLine() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(Self.selfReferencingGrid()).write(to: dir.appendingPathComponent("loop.heic"))
        for command in ["convert", "info"] {
            let run = try HostileInputTests.shell("$IMGPREP \(command) loop.heic", in: dir)
            #expect(run.status == 1, "\(command): \(run.status)\n\(run.stderr)")
            #expect(HostileInputTests.lines(about: "loop.heic", in: run.stderr) == ["imgprep: loop.heic: decode: HEIF item 2 refers to itself as its own source image"])
        }
    }
}
