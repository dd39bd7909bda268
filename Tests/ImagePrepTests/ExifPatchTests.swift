import Foundation
import Testing
@testable import ImagePrep

// Synthetic blocks are checked with our own reader and with exiftool (an independent reader);
// real camera blocks come from the shared corpus and are compared tag by tag before and after.

@Suite struct ExifPatchTests {
    // MARK: Finding the TIFF block

    /// Found by the exif fuzz target: IFD0 pointing at a GPS IFD twice kept one pointer after --strip-gps.
    @Test func aSecondGPSPointerDoesNotSurviveStripping() {
        let latitudeRef = HostileFiles.littleEndian16(1) + HostileFiles.littleEndian16(2) + HostileFiles.littleEndian(2) + Array("N\0\0\0".utf8)
        let gpsIFD = HostileFiles.littleEndian16(1) + latitudeRef + HostileFiles.littleEndian(0)
        let gpsAt: UInt32 = 8 + 2 + 2 * 12 + 4
        let tiff = HostileFiles.tiff([.init(tag: 0x8825, type: 4, count: 1, value: gpsAt),
                                      .init(tag: 0x8825, type: 4, count: 1, value: gpsAt)], tail: gpsIFD)
        #expect(Exif.hasGPS(tiff))
        let patched = try? Exif.patch(tiff, options: ExifPatchOptions(stripGPS: true))
        #expect(patched.map { !Exif.hasGPS($0.tiff) } ?? true, "GPS survived: \(patched?.tiff ?? [])")
    }

    @Test func findsTIFFInHeifExifItems() {
        let tiff = SampleTIFF().bytes()
        let exif = Array("Exif\0\0".utf8)
        #expect(Exif.tiff(fromHeifExifItem: [0, 0, 0, 0] + tiff) == tiff)
        #expect(Exif.tiff(fromHeifExifItem: [0, 0, 0, 6] + exif + tiff) == tiff)
        #expect(Exif.tiff(fromHeifExifItem: exif + tiff) == tiff)
        #expect(Exif.tiff(fromHeifExifItem: tiff) == tiff)
        // A wrong offset: the header is found by searching the first bytes.
        #expect(Exif.tiff(fromHeifExifItem: [0, 0, 0x10, 0] + exif + tiff) == tiff)
        #expect(Exif.tiff(fromHeifExifItem: [0, 0, 0, 0] + Array(repeating: 0x41, count: 100)) == nil)
        for length in 0..<8 { #expect(Exif.tiff(fromHeifExifItem: Array(tiff.prefix(length))) == nil) }
    }

    // MARK: Orientation and dimensions

    @Test(arguments: [(false, 3), (false, 4), (true, 3), (true, 4)])
    func patchesOrientationAndDimensions(bigEndian: Bool, dimensionType: Int) throws {
        let sample = SampleTIFF(bigEndian: bigEndian, dimensionType: dimensionType)
        let original = sample.bytes()
        #expect(Exif.orientation(in: original) == 6)

        let result = try Exif.patch(original, options: ExifPatchOptions(orientation: 1, pixelWidth: 3000, pixelHeight: 4000))
        #expect(result.warnings.isEmpty)
        #expect(result.tiff.count == original.count)
        #expect(Exif.orientation(in: result.tiff) == 1)
        #expect(try exifIFDValue(0xA002, in: result.tiff) == 3000)
        #expect(try exifIFDValue(0xA003, in: result.tiff) == 4000)
    }

    /// The same patch read by an independent reader.
    @Test(.enabled(if: exiftoolAvailable, "exiftool is not installed"), arguments: [(false, 3), (false, 4), (true, 3), (true, 4)])
    func patchedOrientationAndDimensionsReadByExiftool(bigEndian: Bool, dimensionType: Int) throws {
        let original = SampleTIFF(bigEndian: bigEndian, dimensionType: dimensionType).bytes()
        let result = try Exif.patch(original, options: ExifPatchOptions(orientation: 1, pixelWidth: 3000, pixelHeight: 4000))
        let tags = try exiftool(jpegAround: result.tiff)
        #expect(tags["IFD0:Orientation"] as? Int == 1)
        #expect(tags["ExifIFD:ExifImageWidth"] as? Int == 3000)
        #expect(tags["ExifIFD:ExifImageHeight"] as? Int == 4000)
        #expect(tags["IFD0:Make"] as? String == SampleTIFF.make)
        #expect(tags["ExifIFD:DateTimeOriginal"] as? String == SampleTIFF.dateTimeOriginal)
        #expect(tags["GPS:GPSLatitude"] != nil)
        #expect(tags["IFD1:ThumbnailLength"] as? Int == SampleTIFF.thumbnail.count)
    }

    @Test func dimensionTooLargeForShortIsLeftWithAWarning() throws {
        let result = try Exif.patch(SampleTIFF(dimensionType: 3).bytes(), options: ExifPatchOptions(pixelWidth: 70000, pixelHeight: 500))
        #expect(result.warnings.count == 1)
        #expect(try exifIFDValue(0xA002, in: result.tiff) == 4000)
        #expect(try exifIFDValue(0xA003, in: result.tiff) == 500)
    }

    @Test func absentOrientationStaysAbsent() throws {
        var sample = SampleTIFF()
        sample.orientation = nil
        let original = sample.bytes()
        #expect(try Exif.patch(original, options: ExifPatchOptions(orientation: 1)).tiff == original)
    }

    // MARK: GPS

    @Test(arguments: [false, true])
    func strippingGPSLeavesNoCoordinates(bigEndian: Bool) throws {
        let sample = SampleTIFF(bigEndian: bigEndian)
        let original = sample.bytes()
        let latitude = sample.encodedRationals(SampleTIFF.latitude), longitude = sample.encodedRationals(SampleTIFF.longitude)
        let coordinatesBefore = contains(original, latitude) && contains(original, longitude)
        #expect(coordinatesBefore)

        let result = try Exif.patch(original, options: ExifPatchOptions(stripGPS: true))
        #expect(result.tiff.count == original.count)
        let latitudeSurvives = contains(result.tiff, latitude), longitudeSurvives = contains(result.tiff, longitude)
        #expect(!latitudeSurvives)
        #expect(!longitudeSurvives)
        let block = try TIFFBlock(result.tiff)
        let ifd0 = try block.directory(at: block.ifd0Offset, "IFD0")
        #expect(ifd0.entries.map(\.tag) == [0x010F, 0x0112, 0x8769, 0x9C9C])
    }

    @Test(.enabled(if: exiftoolAvailable, "exiftool is not installed"), arguments: [false, true])
    func strippedGPSReadByExiftool(bigEndian: Bool) throws {
        let result = try Exif.patch(SampleTIFF(bigEndian: bigEndian).bytes(), options: ExifPatchOptions(stripGPS: true))
        let tags = try exiftool(jpegAround: result.tiff)
        #expect(tags.keys.filter { $0.hasPrefix("GPS:") }.isEmpty)
        #expect(tags["IFD0:Make"] as? String == SampleTIFF.make)
        #expect(tags["IFD0:XPComment"] as? String == SampleTIFF.xpComment)  // the entry after GPSInfo moved down intact
        #expect(tags["ExifIFD:DateTimeOriginal"] as? String == SampleTIFF.dateTimeOriginal)
        #expect(tags["IFD1:ThumbnailLength"] as? Int == SampleTIFF.thumbnail.count)  // the next-IFD pointer moved too
        #expect(tags["ExifTool:Warning"] == nil)
    }

    @Test func detectsGPS() throws {
        let original = SampleTIFF().bytes()
        #expect(Exif.hasGPS(original))
        #expect(!Exif.hasGPS(try Exif.patch(original, options: ExifPatchOptions(stripGPS: true)).tiff))
        #expect(Exif.hasGPS(Array(original.prefix(20))))   // unreadable: cannot rule GPS out
    }

    @Test func gpsDirectoryOverlappingIFD0IsRefused() throws {
        var sample = SampleTIFF()
        sample.gpsPointsAtIFD0 = true
        #expect(throws: ImagePrepError.self) { try Exif.patch(sample.bytes(), options: ExifPatchOptions(stripGPS: true)) }
    }

    // MARK: Size limit

    @Test(arguments: [false, true])
    func maxBytesDropsATrailingThumbnail(bigEndian: Bool) throws {
        let original = SampleTIFF(bigEndian: bigEndian).bytes()
        let limit = original.count - 100
        let result = try Exif.patch(original, options: ExifPatchOptions(orientation: 1, maxBytes: limit))
        #expect(result.tiff.count <= limit)
        #expect(result.tiff.count < original.count - SampleTIFF.thumbnail.count)
        #expect(result.warnings == ["dropped the EXIF thumbnail to keep EXIF within \(limit) bytes"])
    }

    @Test(.enabled(if: exiftoolAvailable, "exiftool is not installed"), arguments: [false, true])
    func droppedThumbnailReadByExiftool(bigEndian: Bool) throws {
        let original = SampleTIFF(bigEndian: bigEndian).bytes()
        let result = try Exif.patch(original, options: ExifPatchOptions(orientation: 1, maxBytes: original.count - 100))
        let tags = try exiftool(jpegAround: result.tiff)
        #expect(tags.keys.filter { $0.hasPrefix("IFD1:") }.isEmpty)
        #expect(tags["IFD0:Make"] as? String == SampleTIFF.make)
        #expect(tags["ExifIFD:DateTimeOriginal"] as? String == SampleTIFF.dateTimeOriginal)
        #expect(tags["GPS:GPSLatitudeRef"] as? String == "N")
        #expect(tags["ExifTool:Warning"] == nil)
    }

    @Test func maxBytesLeavesSmallBlocksAlone() throws {
        let original = SampleTIFF().bytes()
        let result = try Exif.patch(original, options: ExifPatchOptions(maxBytes: original.count))
        #expect(result.tiff == original)
        #expect(result.warnings.isEmpty)
    }

    @Test func maxBytesFailsWhenOtherDataFollowsTheThumbnail() throws {
        var sample = SampleTIFF()
        sample.layout = ["IFD0", "IFD1", "ExifIFD", "GPS"]
        let original = sample.bytes()
        #expect(throws: ImagePrepError(.doesNotFit, "EXIF needs \(original.count) bytes without its thumbnail, more than the 1000 allowed")) {
            try Exif.patch(original, options: ExifPatchOptions(maxBytes: 1000))
        }
        // Once GPS is stripped only ExifIFD follows the thumbnail, which still cannot move.
        #expect(throws: ImagePrepError.self) { try Exif.patch(original, options: ExifPatchOptions(stripGPS: true, maxBytes: 1000)) }
    }

    // MARK: Hostile input

    @Test func selfReferencingDirectoriesTerminate() throws {
        var sample = SampleTIFF()
        sample.cyclic = true   // IFD0's next-IFD and ExifIFD pointers both point back at IFD0
        let options = ExifPatchOptions(orientation: 1, pixelWidth: 1, pixelHeight: 1, maxBytes: 100)
        #expect(throws: ImagePrepError.self) { try Exif.patch(sample.bytes(), options: options) }
        #expect(Exif.orientation(in: sample.bytes()) == 6)
    }

    /// Found by the exif fuzz target: an Orientation of 17 BYTEs stored "at offset 0" made the patch
    /// write 1 over the TIFF header, leaving a block nothing could read. Structure is never overwritten.
    @Test func outOfLineValuesOnTheStructureAreNotWritten() throws {
        let onHeader = HostileFiles.tiff([.init(tag: 0x0112, type: 1, count: 17, value: 0)], tail: Array(repeating: 0xFF, count: 8))
        #expect(throws: ImagePrepError.self) { try Exif.patch(onHeader, options: ExifPatchOptions(orientation: 1)) }
        let onIFD0 = HostileFiles.tiff([.init(tag: 0x0112, type: 3, count: 3, value: 8)])
        #expect(throws: ImagePrepError.self) { try Exif.patch(onIFD0, options: ExifPatchOptions(orientation: 1)) }
        // Out of line after the directory is fine.
        let apart = HostileFiles.tiff([.init(tag: 0x0112, type: 3, count: 3, value: 26)], tail: [6, 0, 6, 0, 6, 0])
        let patched = try Exif.patch(apart, options: ExifPatchOptions(orientation: 1))
        #expect(Array(patched.tiff.suffix(6)) == [1, 0, 6, 0, 6, 0])
    }

    /// On our sample block (GPS and a thumbnail) everywhere, and on a camera's EXIF when the corpus is here.
    @Test func randomMutationsNeverCrash() throws {
        try Self.mutate(SampleTIFF().bytes())
    }

    @Test(.enabled(if: exiftoolAvailable && corpus != nil, "no shared corpus (or no exiftool): camera EXIF not mutated"))
    func randomMutationsOfCameraExifNeverCrash() throws {
        try Self.mutate(try realTIFF("jpeg/nuke__image-p3.jpg"))
    }

    static func mutate(_ base: [UInt8]) throws {
        var random = MutationRandom(seed: 0x1D6_7A5C)
        let options = ExifPatchOptions(orientation: 1, pixelWidth: 100, pixelHeight: 70000, stripGPS: true, maxBytes: base.count - 1000)
        var outcomes = (patched: 0, thrown: 0)
        for _ in 0..<2000 {
            var bytes = base
            for _ in 0...random.next(below: 8) {
                // Most flips go to the directories near the start, where they change structure.
                let position = random.next(below: random.next(below: 4) == 0 ? bytes.count : min(bytes.count, 600))
                bytes[position] = UInt8(truncatingIfNeeded: random.next(below: 256))
            }
            if random.next(below: 10) == 0 { bytes.removeLast(random.next(below: bytes.count)) }
            _ = Exif.orientation(in: bytes)
            _ = Exif.tiff(fromHeifExifItem: bytes)
            if (try? Exif.patch(bytes, options: options)) != nil { outcomes.patched += 1 } else { outcomes.thrown += 1 }
        }
        // Both paths must be exercised, or the mutations are too gentle or too harsh to mean anything.
        #expect(outcomes.patched > 100 && outcomes.thrown > 100, "\(outcomes)")
    }

    // MARK: Real camera EXIF

    @Test(.enabled(if: exiftoolAvailable && corpus != nil, "no shared corpus (or no exiftool): camera EXIF not checked"), arguments: [
        "heic/libvips__heic-orientation-6.heic", "heic/immich__samsung-one-ui-6.heic", "heic/pillow_heif__xiaomi.heic",
        "jpeg/nuke__image-p3.jpg", "jpeg/immich__empty_gps.jpg",
    ])
    func realEXIFKeepsEveryOtherTag(file: String) throws {
        let original = try realTIFF(file)
        let result = try Exif.patch(original, options: ExifPatchOptions(
            orientation: 1, pixelWidth: 1234, pixelHeight: 567, stripGPS: true, maxBytes: 65527))
        #expect(result.tiff.count <= 65527)
        #expect(Exif.orientation(in: result.tiff) == 1)

        let before = try exiftool(file: original, extension: "tif"), after = try exiftool(file: result.tiff, extension: "tif")
        #expect(after["IFD0:Orientation"] as? Int == 1)
        #expect(after["ExifIFD:ExifImageWidth"] as? Int == 1234)
        #expect(after["ExifIFD:ExifImageHeight"] as? Int == 567)
        #expect(after.keys.filter { $0.hasPrefix("GPS:") }.isEmpty)
        if result.warnings.isEmpty { #expect(after["IFD1:ThumbnailLength"] as? Int == before["IFD1:ThumbnailLength"] as? Int) }

        let changed: Set = ["IFD0:Orientation", "ExifIFD:ExifImageWidth", "ExifIFD:ExifImageHeight"]
        let ignoredGroups = ["SourceFile", "ExifTool:ExifToolVersion", "System:", "File:", "GPS:", "IFD1:", "Composite:"]
        func kept(_ tags: [String: Any]) -> [String: String] {
            tags.filter { key, _ in !changed.contains(key) && !ignoredGroups.contains { key.hasPrefix($0) } }
                .mapValues { "\($0)" }
        }
        #expect(kept(before).count > 20)
        #expect(kept(after) == kept(before))

        // The patched block must also read cleanly where it will live: one JPEG APP1 segment.
        let inJPEG = try exiftool(jpegAround: result.tiff)
        #expect(inJPEG["IFD0:Orientation"] as? Int == 1)
        #expect(inJPEG.keys.filter { $0.hasPrefix("GPS:") }.isEmpty)
    }

    @Test(.enabled(if: exiftoolAvailable && corpus != nil, "no shared corpus (or no exiftool): camera EXIF not checked"))
    func realHeifItemOffsetsAreStripped() throws {
        let tiff = try realTIFF("heic/libvips__heic-orientation-6.heic")
        #expect(Exif.tiff(fromHeifExifItem: [0, 0, 0, 6] + Array("Exif\0\0".utf8) + tiff) == tiff)
        #expect(Exif.orientation(in: tiff) == 6)
    }
}

// MARK: - Helpers

/// A small but complete EXIF block: IFD0 (Make, Orientation, ExifIFD and GPS pointers, XPComment),
/// ExifIFD (DateTimeOriginal, PixelX/YDimension), GPS (version, latitude, longitude) and IFD1 with a thumbnail.
private struct SampleTIFF {
    static let make = "TestCam"
    static let dateTimeOriginal = "2024:05:06 07:08:09"
    static let xpComment = "hi"
    static let latitude: [(UInt32, UInt32)] = [(47, 1), (36, 1), (421_337, 10000)]
    static let longitude: [(UInt32, UInt32)] = [(122, 1), (19, 1), (987_654, 10000)]
    static let thumbnail: [UInt8] = [0xFF, 0xD8] + Array(repeating: 0xAB, count: 3000) + [0xFF, 0xD9]

    var bigEndian = false
    var dimensionType = 4
    var orientation: Int? = 6
    var layout = ["IFD0", "ExifIFD", "GPS", "IFD1"]   // the thumbnail follows IFD1's values
    var gpsPointsAtIFD0 = false
    var cyclic = false

    private enum Value {
        case short([Int]), long([Int]), byte([UInt8]), ascii(String), rationals([(UInt32, UInt32)])
        case pointer(String)   // offset of the named directory
        case thumbnailOffset
    }

    private func directories() -> [String: (entries: [(Int, Value)], next: String?)] {
        let dimension: (Int) -> Value = { dimensionType == 3 ? .short([$0]) : .long([$0]) }
        let xpComment: [UInt8] = Self.xpComment.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0, 0]  // UTF-16LE
        var ifd0: [(Int, Value)] = [(0x010F, .ascii(Self.make))]
        if let orientation { ifd0.append((0x0112, .short([orientation]))) }
        ifd0.append((0x8769, .pointer(cyclic ? "IFD0" : "ExifIFD")))
        ifd0.append((0x8825, .pointer(gpsPointsAtIFD0 ? "IFD0" : "GPS")))
        ifd0.append((0x9C9C, .byte(xpComment)))
        let exifIFD: [(Int, Value)] = [(0x9003, .ascii(Self.dateTimeOriginal)), (0xA002, dimension(4000)), (0xA003, dimension(3000))]
        let gps: [(Int, Value)] = [(0x0000, .byte([2, 3, 0, 0])), (0x0001, .ascii("N")), (0x0002, .rationals(Self.latitude)),
                                   (0x0003, .ascii("E")), (0x0004, .rationals(Self.longitude))]
        let ifd1: [(Int, Value)] = [(0x0103, .short([6])), (0x0201, .thumbnailOffset), (0x0202, .long([Self.thumbnail.count]))]
        return ["IFD0": (ifd0, cyclic ? "IFD0" : "IFD1"), "ExifIFD": (exifIFD, nil), "GPS": (gps, nil), "IFD1": (ifd1, nil)]
    }

    func bytes() -> [UInt8] {
        let directories = directories()
        // First pass: where each directory and the thumbnail go (sizes do not depend on offsets).
        var offsets: [String: Int] = [:]
        var thumbnailOffset = 0
        var position = 8
        for name in layout {
            offsets[name] = position
            let entries = directories[name]!.entries
            position += 2 + 12 * entries.count + 4
            // Payloads over 4 bytes go after the directory, each padded to an even length.
            for (_, value) in entries {
                let size: Int = payloadSize(value)
                if size > 4 { position += (size + 1) & ~1 }
            }
            if name == "IFD1" { thumbnailOffset = position; position += Self.thumbnail.count }
        }
        // Second pass: write.
        var out = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        for name in layout {
            let (entries, next) = directories[name]!
            var data: [UInt8] = []
            let dataStart = offsets[name]! + 2 + 12 * entries.count + 4
            out += u16(entries.count)
            for (tag, value) in entries {
                let (type, count, payload) = encode(value, offsets: offsets, thumbnailOffset: thumbnailOffset)
                out += u16(tag) + u16(type) + u32(count)
                if payload.count <= 4 {
                    out += payload + Array(repeating: 0, count: 4 - payload.count)
                } else {
                    out += u32(dataStart + data.count)
                    data += payload + (payload.count % 2 == 1 ? [0] : [])
                }
            }
            out += u32(next.map { offsets[$0]! } ?? 0) + data
            if name == "IFD1" { out += Self.thumbnail }
        }
        return out
    }

    func encodedRationals(_ values: [(UInt32, UInt32)]) -> [UInt8] {
        values.flatMap { u32(Int($0.0)) + u32(Int($0.1)) }
    }

    private func payloadSize(_ value: Value) -> Int {
        encode(value, offsets: [:], thumbnailOffset: 0).payload.count
    }

    private func encode(_ value: Value, offsets: [String: Int], thumbnailOffset: Int) -> (type: Int, count: Int, payload: [UInt8]) {
        switch value {
        case .short(let v): (3, v.count, v.flatMap(u16))
        case .long(let v): (4, v.count, v.flatMap(u32))
        case .byte(let v): (1, v.count, v)
        case .ascii(let s): (2, s.utf8.count + 1, Array(s.utf8) + [0])
        case .rationals(let v): (5, v.count, encodedRationals(v))
        case .pointer(let name): (4, 1, u32(offsets[name] ?? 0))
        case .thumbnailOffset: (4, 1, u32(thumbnailOffset))
        }
    }

    private func u16(_ v: Int) -> [UInt8] {
        let b = [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return bigEndian ? b : b.reversed()
    }

    private func u32(_ v: Int) -> [UInt8] {
        bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16)
    }
}

private func exifIFDValue(_ tag: Int, in tiff: [UInt8]) throws -> Int? {
    let block = try TIFFBlock(tiff)
    let ifd0 = try block.directory(at: block.ifd0Offset, "IFD0")
    let exifIFD = try block.subdirectory(try #require(ifd0.entry(TIFFBlock.exifPointerTag)), "ExifIFD")
    return try block.integers(try #require(exifIFD.entry(tag)))?.first
}

private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    haystack.indices.dropLast(max(0, needle.count - 1)).contains { haystack[$0...].starts(with: needle) }
}

/// Deterministic, so a failing mutation can be reproduced.
private struct MutationRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(bound, 1)))
    }
}

private let corpus = TestSupport.corpus

private let exiftoolAvailable = (try? run(["exiftool", "-ver"])) != nil

/// The EXIF of a corpus file as exiftool extracts it: the bare TIFF block.
private func realTIFF(_ file: String) throws -> [UInt8] {
    let url = try #require(corpus).appendingPathComponent(file)
    let tiff = try run(["exiftool", "-b", "-exif", url.path])
    try #require(TIFFBlock.startsWithHeader(tiff[...]))
    return tiff
}

/// An 8x8 JPEG made once by ImageMagick, to carry EXIF blocks for exiftool.
private let tinyJPEG: [UInt8]? = {
    let path = NSTemporaryDirectory() + "imgprep-exif-\(UUID().uuidString).jpg"
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard (try? run(["convert", "-size", "8x8", "xc:gray", path])) != nil else { return nil }
    return FileManager.default.contents(atPath: path).map { Array($0) }
}()

/// exiftool's view of the block inside a JPEG APP1 segment spliced in right after SOI.
private func exiftool(jpegAround tiff: [UInt8]) throws -> [String: Any] {
    let jpeg = try #require(tinyJPEG)
    let length = 2 + 6 + tiff.count
    let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("Exif\0\0".utf8) + tiff
    return try exiftool(file: Array(jpeg[0..<2]) + app1 + jpeg[2...], extension: "jpg")
}

/// `exiftool -j -n -G1 -a -b` (binary values as base64, so they compare exactly) of bytes written to a temporary file.
private func exiftool(file bytes: [UInt8], extension ext: String) throws -> [String: Any] {
    let path = NSTemporaryDirectory() + "imgprep-exif-\(UUID().uuidString).\(ext)"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let json = try JSONSerialization.jsonObject(with: Data(run(["exiftool", "-j", "-n", "-G1", "-a", "-b", path])))
    return try #require((json as? [[String: Any]])?.first)
}

private struct CommandFailed: Error { let command: [String] }

private func run(_ command: [String]) throws -> [UInt8] {
    let result = try TestSupport.capture(command[0], Array(command.dropFirst()))
    guard result.status == 0 else { throw CommandFailed(command: command) }
    return result.output
}
