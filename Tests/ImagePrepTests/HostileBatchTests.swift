import Foundation
import Testing
@testable import ImagePrep

/// One batch of good photos and hostile files made here: overflowing headers, zero and huge counts,
/// IFD and reference loops, impossible box sizes, truncated and bit-flipped files. The batch finishes
/// (exit 1, summary last), every good photo converts, every file whose picture cannot be read gets
/// exactly one error line and no output, a file whose only fault is its metadata converts with at
/// most one warning, damage no format can detect (a flipped bit in HEVC or JPEG entropy-coded data)
/// either fails that way or converts, and nothing else is left in the output directory.
@Suite struct HostileBatchTests {
    /// Fails: its picture cannot be read.
    static func unreadable() throws -> [(name: String, bytes: [UInt8])] {
        let good = try goodJPEG(), png = try goodPNG()
        let heic = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path)
        var files: [(String, [UInt8])] = [
            ("png-size-overflows.png", HostileFiles.pngHeaderOnly(width: .max, height: .max)),
            ("png-zero-size.png", HostileFiles.pngHeaderOnly(width: 0, height: 0)),
            ("png-10-gigapixels.png", HostileFiles.pngHeaderOnly(width: 100_000, height: 100_000)),
            ("png-truncated.png", Array(png.prefix(png.count / 2))),
            ("png-chunk-length-huge.png", HostileFiles.pngSignature + HostileFiles.bigEndian(0x7FFF_FFF0) + Array("IHDR".utf8) + [0, 0, 0, 1]),
            ("jpeg-4-gigapixels.jpg", try sofSize(good, width: 65_000, height: 65_000)),
            ("jpeg-zero-height.jpg", try sofSize(good, width: 64, height: 0)),
            ("jpeg-truncated.jpg", Array(good.prefix(good.count / 2))),
            ("jpeg-thousands-of-scans.jpg", try scanBomb()),
            ("heic-truncated.heic", Array(heic.prefix(heic.count / 3))),
            ("heic-grid-is-its-own-tile.heic", try HeifReferenceLoopsTests.selfReferencingGrid()),
            ("heic-meta-size-past-the-end.heic", try boxSize(heic, "meta", 0x7FFF_FFFF)),
            ("heic-meta-largesize-too-small.heic", try boxSize(heic, "meta", 1)),
            ("heic-ispe-4-gigapixels.heic", try hugeSpatialExtent(heic)),
            ("empty.heic", []),
            ("text-named.jpg", Array("this is not a picture\n".utf8)),
        ]
        files.append(("png-bit-flipped.png", flipped(png, at: png.count - 30)))   // PNG chunks carry CRCs
        return files
    }

    /// Fails with one line or converts: HEVC and JPEG picture data carry no checksum, so a flipped bit
    /// may only change pixels.
    static func damaged() throws -> [(name: String, bytes: [UInt8], width: Int, height: Int)] {
        let heic = try TestSupport.bytes(TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path)
        let jpeg = try goodJPEG()
        return [
            ("heic-bit-flipped.heic", flipped(heic, at: heic.count - 500), 320, 240),
            ("heic-bit-flipped-early.heic", flipped(heic, at: heic.count / 2), 320, 240),
            ("jpeg-bit-flipped.jpg", flipped(jpeg, at: jpeg.count - 60), 64, 48),
        ]
    }

    /// Converts: only the metadata is hostile, and imgprep never follows it anywhere dangerous.
    static func hostileMetadata() throws -> [(name: String, bytes: [UInt8])] {
        typealias E = HostileFiles.Entry
        let orientation = E(tag: 0x0112, type: 3, count: 1, value: 6)
        return [
            ("exif-count-zero.jpg", try HostileFiles.jpeg(exif: HostileFiles.tiff([E(tag: 0x0112, type: 3, count: 0, value: 0)]))),
            ("exif-count-huge.jpg", try HostileFiles.jpeg(exif: HostileFiles.tiff([orientation, E(tag: 0x010F, type: 2, count: 0xFFFF_FFFF, value: 26)]))),
            ("exif-offset-overflows.jpg", try HostileFiles.jpeg(exif: HostileFiles.tiff([orientation, E(tag: 0x010F, type: 2, count: 16, value: 0xFFFF_FFF0)]))),
            // IFD0's next-IFD pointer and its ExifIFD pointer both lead back to IFD0.
            ("exif-ifd-loop.jpg", try HostileFiles.jpeg(exif: HostileFiles.tiff([orientation, E(tag: 0x8769, type: 4, count: 1, value: 8)], next: 8))),
            ("exif-gps-points-at-ifd0.jpg", try HostileFiles.jpeg(exif: HostileFiles.tiff([orientation, E(tag: 0x8825, type: 4, count: 1, value: 8)]))),
            ("xmp-deep.jpg", try jpeg(xmp: Array((String(repeating: "<a>", count: 5000) + String(repeating: "</a>", count: 5000)).utf8))),
        ]
    }

    @Test func batchOfGoodAndHostileFilesFinishesWithOneLinePerBadFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in"), out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)

        var good: [String: (width: Int, height: Int)] = [
            "gps-p3.heic": (320, 240), "orientation-6.heic": (240, 160), "alpha.heic": (64, 64), "10bit.heic": (64, 48), "gray.heic": (64, 48),
        ]
        for name in good.keys {
            try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("heic/\(name)").path,
                                             toPath: input.appendingPathComponent(name).path)
        }
        try Data(Self.goodJPEG()).write(to: input.appendingPathComponent("good.jpg"))
        try Data(Self.goodPNG()).write(to: input.appendingPathComponent("good-rgba.png"))
        good["good.jpg"] = (64, 48)
        good["good-rgba.png"] = (64, 48)
        let unreadable = try Self.unreadable(), metadata = try Self.hostileMetadata(), damaged = try Self.damaged()
        for (name, bytes) in unreadable + metadata + damaged.map({ ($0.name, $0.bytes) }) {
            try Data(bytes).write(to: input.appendingPathComponent(name))
        }

        let names = (Array(good.keys) + (unreadable + metadata).map(\.name) + damaged.map(\.name)).sorted()
        let run = try HostileInputTests.shell("$IMGPREP convert \(names.map { "in/\($0)" }.joined(separator: " ")) -o out -j 2", in: dir)
        #expect(run.status == 1, "exit status \(run.status)\n\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let summary = lines.last ?? ""
        let damagedFailures = damaged.filter { item in lines.contains { $0.hasPrefix("imgprep: in/\(item.name): ") && !$0.contains(": warning: ") } }
        let converted = good.count + metadata.count + damaged.count - damagedFailures.count
        #expect(summary.hasPrefix("\(converted) converted, 0 skipped, \(unreadable.count + damagedFailures.count) failed in "), "\(run.stderr)")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("imgprep: in/") }, "stray stderr lines:\n\(run.stderr)")
        func linesAbout(_ name: String) -> [String] { lines.filter { $0.hasPrefix("imgprep: in/\(name): ") } }
        func output(_ name: String) -> URL { out.appendingPathComponent((name as NSString).deletingPathExtension + ".jpg") }

        for (name, size) in good {
            #expect(linesAbout(name).isEmpty, "\(name): \(linesAbout(name))")
            let image = try? TestSupport.decode(output(name).path)
            #expect(image?.width == size.width && image?.height == size.height, "\(name) did not convert")
        }
        for (name, _) in unreadable {
            let mine = linesAbout(name)
            #expect(mine.count == 1 && !mine[0].contains(": warning: "), "\(name): \(mine)")
            #expect(!FileManager.default.fileExists(atPath: output(name).path), "\(name) left an output")
        }
        for (name, _) in metadata {
            let mine = linesAbout(name)
            #expect(mine.count <= 1 && mine.allSatisfy { $0.contains(": warning: ") }, "\(name): \(mine)")
            #expect((try? TestSupport.decode(output(name).path))?.width == 8, "\(name) did not convert")
        }
        for (name, _, width, height) in damaged {
            let mine = linesAbout(name)
            if mine.contains(where: { !$0.contains(": warning: ") }) {
                #expect(mine.count == 1 && !FileManager.default.fileExists(atPath: output(name).path), "\(name): \(mine)")
            } else {
                let image = try? TestSupport.decode(output(name).path)
                #expect(mine.count <= 1 && image?.width == width && image?.height == height, "\(name): \(mine)")
            }
        }
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).sorted()
        let convertedNames = Array(good.keys) + metadata.map(\.name) + damaged.map(\.name).filter { name in !damagedFailures.contains { $0.name == name } }
        let expected = convertedNames.map { ($0 as NSString).deletingPathExtension + ".jpg" }.sorted()
        #expect(left == expected, "the output directory holds more or less than the converted files (temporary files?)")
    }

    // MARK: Makers

    static func goodJPEG() throws -> [UInt8] {
        try JPEGEncoder().encode(CodecTestSupport.gradient(width: 64, height: 48), quality: 85, settings: JPEGSettings())
    }

    static func goodPNG() throws -> [UInt8] {
        try PNGEncoder.encode(CodecTestSupport.gradient(width: 64, height: 48, channels: 4), metadata: ImageMetadata(), compressionLevel: 6)
    }

    static func jpeg(xmp: [UInt8]) throws -> [UInt8] {
        try JPEGEncoder().encode(CodecTestSupport.gradient(width: 8, height: 8), quality: 50, settings: JPEGSettings(),
                                 segments: JPEGSegment.segments(for: ImageMetadata(xmp: xmp)))
    }

    /// The JPEG with its SOF0 frame header claiming another size.
    static func sofSize(_ jpeg: [UInt8], width: UInt16, height: UInt16) throws -> [UInt8] {
        let sof = try #require(jpeg.indices.dropLast().first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        var bytes = jpeg
        bytes.replaceSubrange(sof + 5..<sof + 9, with: HostileFiles.bigEndian16(height) + HostileFiles.bigEndian16(width))
        return bytes
    }

    static func scanBomb() throws -> [UInt8] {
        let jpeg = try JPEGEncoder().encode(CodecTestSupport.gradient(width: 64, height: 64), quality: 80,
                                            settings: JPEGSettings(progressive: true))
        let last = try #require(JPEGCodecTests.offsetsOfSOS(in: jpeg).last)
        let scan = Array(jpeg[last..<(jpeg.count - 2)])
        return Array(jpeg[..<(jpeg.count - 2)]) + Array(Array(repeating: scan, count: 2000).joined()) + [0xFF, 0xD9]
    }

    /// The first top-level box of `type` with its 32-bit size field set to `size`.
    static func boxSize(_ file: [UInt8], _ type: String, _ size: UInt32) throws -> [UInt8] {
        let box = try #require(ISOBMFF.topLevelBoxes(file).first { $0.type == type })
        var bytes = file
        bytes.replaceSubrange(box.start..<box.start + 4, with: HostileFiles.bigEndian(size))
        return bytes
    }

    /// Every `ispe` (image spatial extent) property set to 65535 x 65535.
    static func hugeSpatialExtent(_ file: [UInt8]) throws -> [UInt8] {
        var bytes = file
        var found = 0
        for index in bytes.indices.dropLast(20) where bytes[index...].starts(with: Array("ispe".utf8)) {
            bytes.replaceSubrange(index + 8..<index + 16, with: HostileFiles.bigEndian(65535) + HostileFiles.bigEndian(65535))
            found += 1
        }
        try #require(found > 0)
        return bytes
    }

    static func flipped(_ file: [UInt8], at position: Int) -> [UInt8] {
        var bytes = file
        for offset in 0..<8 { bytes[position + offset] ^= 0x5A }
        return bytes
    }
}
