import Foundation
import Testing
@testable import ImagePrep

// BoxBuilder lives in ISOBMFFTests.swift.

/// Checks what the repair promises: same length, same boxes from the top down to iref, and nothing
/// changed outside the iref entries.
private func expectSameLayout(_ original: [UInt8], _ repaired: [UInt8]) throws {
    #expect(repaired.count == original.count)
    #expect(ISOBMFF.topLevelBoxes(repaired) == ISOBMFF.topLevelBoxes(original))
    let meta = try #require(ISOBMFF.find(["meta"], in: original))
    #expect(ISOBMFF.children(of: meta, in: repaired) == ISOBMFF.children(of: meta, in: original))
    let iref = try #require(ISOBMFF.find(["meta", "iref"], in: original))
    let entriesStart = iref.payload.lowerBound + 4
    #expect(repaired[..<entriesStart] == original[..<entriesStart])
    #expect(repaired[iref.end...] == original[iref.end...])
}

private func references(_ file: [UInt8]) throws -> [ISOBMFF.Reference] {
    try #require(HeifStructure(file)).references
}

struct HeifReferenceRepairTests {
    @Test(arguments: [UInt8(0), 1])
    func narrowsAuxlAndCdscIntoTheToneMapReference(irefVersion: UInt8) throws {
        // Like an iPhone gain-map file: references name the primary (1) and the tone-map item (4) together.
        let file = BoxBuilder.heif(
            primary: 1, items: [(1, "hvc1"), (2, "hvc1"), (3, "Exif"), (4, "tmap")],
            references: [.init(type: "auxl", from: 2, to: [4, 1]), .init(type: "cdsc", from: 3, to: [1, 4, 2]),
                         .init(type: "dimg", from: 4, to: [1, 2])],
            irefVersion: irefVersion)
        #expect(HeifReferenceRepair.hasMultiTargetReferences(file))
        let repaired = try #require(repairedForLibheif115(file))
        try expectSameLayout(file, repaired.bytes)
        let after = try references(repaired.bytes)
        #expect(after[0] == .init(type: "auxl", from: 2, to: [1]))
        #expect(after[1] == .init(type: "cdsc", from: 3, to: [1]))
        // Three dropped ids free room for exactly three unused ids on the tone map's reference.
        #expect(after[2] == .init(type: "dimg", from: 4, to: [1, 2, 5, 6, 7]))
        #expect(after.count == 3)
        #expect(repaired.changes.count == 3)
        #expect(!HeifReferenceRepair.hasMultiTargetReferences(repaired.bytes))
    }

    @Test(arguments: [(UInt8(0), 6, 1), (0, 7, 1), (0, 9, 1), (1, 7, 2), (1, 9, 2)])
    func fillsLargerGapsWithPaddingReferences(irefVersion: UInt8, dropped: Int, paddingCount: Int) throws {
        let extraTargets = (0..<UInt32(dropped)).map { 100 + $0 }
        let file = BoxBuilder.heif(
            primary: 1, items: [(1, "hvc1"), (3, "Exif")],
            references: [.init(type: "cdsc", from: 3, to: [1] + extraTargets)], irefVersion: irefVersion)
        let repaired = try #require(repairedForLibheif115(file))
        try expectSameLayout(file, repaired.bytes)
        let after = try references(repaired.bytes)
        #expect(after.first == .init(type: "cdsc", from: 3, to: [1]))
        let padding = after.dropFirst()
        #expect(padding.count == paddingCount && padding.allSatisfy { $0.type == "ipad" })
        // Padding names only items that do not exist, each once.
        let named = padding.flatMap { [$0.from] + $0.to }
        #expect(Set(named).count == named.count && named.allSatisfy { $0 >= 100 + UInt32(dropped) })
    }

    @Test func keepsTheFirstTargetWhenThePrimaryIsNotAmongThem() throws {
        let file = BoxBuilder.heif(
            primary: 1, items: [(1, "hvc1"), (2, "hvc1"), (3, "hvc1"), (4, "tmap")],
            references: [.init(type: "auxl", from: 3, to: [2, 4]), .init(type: "dimg", from: 4, to: [1])])
        let after = try references(try #require(repairedForLibheif115(file)).bytes)
        #expect(after[0].to == [2])
    }

    @Test func leavesFilesAloneWhenNothingNeedsChanging() {
        let file = BoxBuilder.heif(
            primary: 1, items: [(1, "hvc1"), (2, "hvc1"), (3, "Exif")],
            references: [.init(type: "auxl", from: 2, to: [1]), .init(type: "dimg", from: 1, to: [2, 3]),
                         .init(type: "cdsc", from: 3, to: [1])])
        #expect(!HeifReferenceRepair.hasMultiTargetReferences(file))
        #expect(repairedForLibheif115(file) == nil)
        #expect(repairedForLibheif115([]) == nil)
    }

    @Test func givesUpWhenASmallGapHasNowhereToGo() {
        // Two freed bytes: too few for a padding reference, and no tone-map reference to absorb them.
        let file = BoxBuilder.heif(primary: 1, items: [(1, "hvc1"), (2, "hvc1"), (3, "Exif")],
                                   references: [.init(type: "cdsc", from: 3, to: [1, 2])])
        #expect(HeifReferenceRepair.hasMultiTargetReferences(file))
        #expect(repairedForLibheif115(file) == nil)
    }

    @Test func recognisesTheLibheifMessages() {
        #expect(HeifReferenceRepair.isWorkaroundCandidate(message: "Invalid input: Unspecified: Too many auxiliary image references"))
        #expect(HeifReferenceRepair.isWorkaroundCandidate(message: "Metadata not correctly assigned to image"))
        #expect(!HeifReferenceRepair.isWorkaroundCandidate(message: "Invalid input: No 'ftyp' box"))
    }
}

// MARK: - Against the installed libheif (heif-info)

/// Runs command-line tools and finds the shared corpus; tests using them are skipped when absent.
enum LibheifTools {
    static func path(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let haveLibheifTools = ["heif-info", "heif-enc", "heif-convert", "convert", "exiftool"].allSatisfy { path($0) != nil }

    @discardableResult
    static func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path(name)))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `heif-info` on bytes written to a temporary file.
    static func heifInfo(_ bytes: [UInt8]) throws -> (status: Int32, output: String) {
        let url = scratch.appendingPathComponent("imgprep-iref-\(UUID().uuidString).heic")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try run("heif-info", [url.path])
    }

    /// Scratch files go straight into the temporary directory under unique names, each removed by its test.
    static let scratch = FileManager.default.temporaryDirectory

    /// An iPhone 16 gain-map photo from the shared corpus, when this machine has it.
    static let gainMapPhoto = CorpusSupport.path("heic/libvips__apple-heic-gainmap.heic")
}

/// Rewrites a libheif-written HEIC the way a newer phone would lay it out: a new `iref`, and extra items
/// (`infe` plus an `iloc` entry sharing the data of item `dataOf`) inside `meta`; everything after `meta`
/// moves, so the `iloc` offsets into it move too.
private func rewritingReferences(_ file: [UInt8], _ references: [ISOBMFF.Reference],
                                 extraItem: (infe: [UInt8], id: Int, dataOf: Int)? = nil) throws -> [UInt8]
{
    let meta = try #require(ISOBMFF.find(["meta"], in: file))
    var body = Array(file[meta.payload.lowerBound..<meta.payload.lowerBound + 4])
    for child in ISOBMFF.children(of: meta, in: file) {
        switch child.type {
        case "iref":
            body += BoxBuilder.iref(version: 0, references)
        case "iinf" where extraItem != nil:
            body += try appendingEntry(extraItem!.infe, to: child, in: file, countSize: file[child.payload.lowerBound] == 0 ? 2 : 4)
        case "iloc" where extraItem != nil:
            let locations = try #require(ItemLocations(file, child))
            let source = try #require(locations.entries.first { $0.id == extraItem!.dataOf })
            let idSize = locations.version < 2 ? 2 : 4
            let copy = BoxBuilder.bigEndian(UInt64(extraItem!.id), idSize) + file[source.range.dropFirst(idSize)]
            body += try appendingEntry(copy, to: child, in: file, countSize: idSize)
        default:
            body += file[child.start..<child.end]
        }
    }
    var result = Array(file[..<meta.start]) + BoxBuilder.box("meta", body) + Array(file[meta.end...])
    let delta = body.count + 8 - meta.size
    let iloc = try #require(ISOBMFF.find(["meta", "iloc"], in: result))
    let locations = try #require(ItemLocations(result, iloc))
    for field in locations.entries.flatMap(\.fileOffsets) where field.value >= meta.end {
        result.replaceSubrange(field.position..<field.position + field.size,
                               with: BoxBuilder.bigEndian(UInt64(field.value + delta), field.size))
    }
    return result
}

/// A FullBox whose payload is an entry count followed by entries (iinf, iloc), with one more entry.
private func appendingEntry(_ entry: [UInt8], to box: ISOBMFF.Box, in file: [UInt8], countSize: Int) throws -> [UInt8] {
    let header = box.payload.lowerBound
    let countStart = header + 4 + (box.type == "iloc" ? 2 : 0)  // iloc has two bytes of field sizes first
    let count = file[countStart..<countStart + countSize].reduce(0) { $0 << 8 | Int($1) }
    let payload = Array(file[header..<countStart]) + BoxBuilder.bigEndian(UInt64(count + 1), countSize)
        + file[countStart + countSize..<box.end] + entry
    return BoxBuilder.box(box.type, payload)
}

/// Just enough of an `iloc` box to copy entries and move file offsets.
private struct ItemLocations {
    /// A big-endian field that holds an absolute file offset (a base offset, or an extent offset without one).
    struct Field { var position: Int, size: Int, value: Int }
    var version: Int
    var entries: [(id: Int, range: Range<Int>, fileOffsets: [Field])] = []

    init?(_ file: [UInt8], _ iloc: ISOBMFF.Box) {
        var position = iloc.payload.lowerBound
        func read(_ size: Int) -> Int {
            defer { position += size }
            return file[position..<position + size].reduce(0) { $0 << 8 | Int($1) }
        }
        version = read(4) >> 24
        let sizes = read(2)
        let (offsetSize, lengthSize, baseSize) = (sizes >> 12, sizes >> 8 & 15, sizes >> 4 & 15)
        let indexSize = version >= 1 ? sizes & 15 : 0
        for _ in 0..<read(version < 2 ? 2 : 4) {
            let start = position
            let id = read(version < 2 ? 2 : 4)
            let method = version >= 1 ? read(2) & 15 : 0  // 0: offsets into the file
            _ = read(2)  // data reference index
            let base = Field(position: position, size: baseSize, value: read(baseSize))
            let baseIsFileOffset = method == 0 && baseSize > 0 && base.value > 0
            var fileOffsets = baseIsFileOffset ? [base] : []
            for _ in 0..<read(2) {
                _ = read(indexSize)
                let offset = Field(position: position, size: offsetSize, value: read(offsetSize))
                if method == 0, !baseIsFileOffset, offsetSize > 0 { fileOffsets.append(offset) }
                _ = read(lengthSize)
            }
            guard position <= iloc.end else { return nil }
            entries.append((id, start..<position, fileOffsets))
        }
    }
}

@Suite(.enabled(if: LibheifTools.haveLibheifTools, "needs heif-info, heif-enc, heif-convert, convert (ImageMagick) and exiftool"))
struct HeifReferenceRepairLibheifTests {
    /// A 64×48 HEIC with an Exif item: heif-enc 1.15 writes grid 2 (primary) over tile 1, Exif item 3
    /// (`cdsc` 3→2), and with a thumbnail also items 4–5; with alpha, alpha item 4 (`auxl` 4→2).
    private func encodedHEIC(alpha: Bool) throws -> [UInt8] {
        // Unique per call: tests run in parallel and two of them make the same kind of file.
        let name = (alpha ? "imgprep-iref-alpha-" : "imgprep-iref-exif-") + UUID().uuidString
        let source = LibheifTools.scratch.appendingPathComponent(alpha ? "\(name).png" : "\(name).jpg").path
        let output = LibheifTools.scratch.appendingPathComponent("\(name).heic").path
        defer { [source, output].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        if alpha {
            try LibheifTools.run("convert", ["-size", "64x48", "gradient:red-blue", "-alpha", "set", "-channel", "A",
                                      "-evaluate", "set", "50%", "+channel", "png32:" + source])
        } else {
            try LibheifTools.run("convert", ["-size", "64x48", "gradient:red-blue", source])
            try LibheifTools.run("exiftool", ["-q", "-overwrite_original", "-Make=Test", source])
        }
        let encoded = try LibheifTools.run("heif-enc", ["-q", "50", source, "-o", output])
        try #require(encoded.status == 0, "heif-enc: \(encoded.output)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// A stand-in tone-map item 50; libheif 1.15 wants data for every item, so it shares item 1's.
    private let toneMap = (infe: BoxBuilder.infe(id: 50, type: "tmap", name: "tone map"), id: 50, dataOf: 1)

    @Test func cdscNamingThePrimaryAndAToneMap() throws {
        let original = try encodedHEIC(alpha: false)
        #expect(try LibheifTools.heifInfo(original).output.contains("Exif"))
        let broken = try rewritingReferences(original, [
            .init(type: "dimg", from: 2, to: [1]), .init(type: "cdsc", from: 3, to: [2, 50]),
            .init(type: "dimg", from: 50, to: [2]),
        ], extraItem: toneMap)
        let before = try LibheifTools.heifInfo(broken)
        #expect(before.status != 0 && before.output.contains("Metadata not correctly assigned to image"))

        let repaired = try #require(repairedForLibheif115(broken))
        let after = try LibheifTools.heifInfo(repaired.bytes)
        #expect(after.status == 0, "\(after.output)")
        #expect(after.output.contains("Exif"))
        // And imgprep itself reads the broken file, EXIF included.
        let tags = try convertedWithImgprep(broken)
        #expect(tags["IFD0:Make"] as? String == "Test", "\(tags)")
    }

    @Test func cdscWithManyTargetsGetsAPaddingReference() throws {
        let original = try encodedHEIC(alpha: false)
        let broken = try rewritingReferences(original, [
            .init(type: "dimg", from: 2, to: [1]), .init(type: "cdsc", from: 3, to: [2, 1, 100, 101, 102, 103, 104]),
        ])
        #expect(try LibheifTools.heifInfo(broken).output.contains("Metadata not correctly assigned to image"))
        let repaired = try #require(repairedForLibheif115(broken))
        #expect(try references(repaired.bytes).contains { $0.type == "ipad" })
        let after = try LibheifTools.heifInfo(repaired.bytes)
        #expect(after.status == 0 && after.output.contains("Exif"), "\(after.output)")
    }

    @Test func auxlNamingThePrimaryAndAToneMap() throws {
        let original = try encodedHEIC(alpha: true)
        let broken = try rewritingReferences(original, [
            .init(type: "dimg", from: 2, to: [1]), .init(type: "dimg", from: 4, to: [3]),
            .init(type: "auxl", from: 4, to: [50, 2]), .init(type: "dimg", from: 50, to: [2]),
        ], extraItem: toneMap)
        let before = try LibheifTools.heifInfo(broken)
        #expect(before.status != 0 && before.output.contains("Too many auxiliary image references"))

        let after = try LibheifTools.heifInfo(try #require(repairedForLibheif115(broken)).bytes)
        #expect(after.status == 0, "\(after.output)")
        #expect(after.output.contains("alpha channel: yes"))
        let tags = try convertedWithImgprep(broken)
        #expect(tags["File:ImageWidth"] as? Int == 64 && tags["File:ImageHeight"] as? Int == 48, "\(tags)")
    }

    /// Runs `imgprep convert` on `file` and returns exiftool's tags of the JPEG it wrote.
    private func convertedWithImgprep(_ file: [UInt8]) throws -> [String: Any] {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("phone.heic")
        try Data(file).write(to: input)
        let run = try TestSupport.imgprep(["convert", input.path, "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        return try TestSupport.exiftool(dir.appendingPathComponent("phone.jpg").path)
    }

    @Test(.enabled(if: LibheifTools.gainMapPhoto != nil, "no shared corpus: the iPhone 16 gain-map photo is not here"))
    func iPhone16GainMapPhoto() throws {
        let file = try TestSupport.bytes(try #require(LibheifTools.gainMapPhoto))
        #expect(try LibheifTools.heifInfo(file).output.contains("Too many auxiliary image references"))
        let repaired = try #require(repairedForLibheif115(file))
        try expectSameLayout(file, repaired.bytes)
        let after = try LibheifTools.heifInfo(repaired.bytes)
        #expect(after.status == 0, "\(after.output)")
        #expect(after.output.contains("(id=46), primary") && after.output.contains("Exif:"))

        let heic = LibheifTools.scratch.appendingPathComponent("imgprep-iref-gainmap-\(UUID().uuidString).heic")
        let jpeg = LibheifTools.scratch.appendingPathComponent("imgprep-iref-gainmap-\(UUID().uuidString).jpg")
        try Data(repaired.bytes).write(to: heic)
        defer { try? FileManager.default.removeItem(at: heic); try? FileManager.default.removeItem(at: jpeg) }
        let decoded = try LibheifTools.run("heif-convert", ["-q", "90", heic.path, jpeg.path])
        #expect(decoded.status == 0, "\(decoded.output)")
    }
}
