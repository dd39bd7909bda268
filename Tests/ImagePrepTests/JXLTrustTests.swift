import Foundation
import Testing
@testable import ImagePrep

/// JPEG XL files damaged or hostile in their codestream or their metadata boxes, made from the committed
/// fixtures (scripts/make-jxl-fixtures.sh) by splicing boxes: a damaged picture gets imgprep's one line
/// on stderr (libjxl 0.7 prints its own otherwise), bad metadata is dropped with a warning while the
/// picture is written, and a `brob` box that expands past the metadata cap stops at the cap.
struct JXLTrustTests {
    static let recompressed = TestSupport.packageRoot.appendingPathComponent("Tests/Fixtures/jxl/recompressed.jxl").path
    static let lossy = TestSupport.packageRoot.appendingPathComponent("Tests/Fixtures/jxl/lossy.jxl").path

    /// The top-level boxes of a container (32-bit sizes, as cjxl writes them): offset, size, type.
    static func boxes(_ file: [UInt8]) -> [(offset: Int, size: Int, type: String)] {
        var found: [(Int, Int, String)] = []
        var offset = 0
        while offset + 8 <= file.count {
            let size = file[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { break }
            found.append((offset, size, String(decoding: file[offset + 4..<offset + 8], as: UTF8.self)))
            offset += size
        }
        return found
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        HostileFiles.bigEndian(UInt32(payload.count + 8)) + Array(type.utf8) + payload
    }

    /// The fixture with the `brob` box holding `inner` replaced by `replacement` (whole boxes).
    static func replacingBrob(_ inner: String, with replacement: [UInt8]) throws -> [UInt8] {
        let file = try TestSupport.bytes(recompressed)
        let target = try #require(boxes(file).first { $0.type == "brob" && file[$0.offset + 8..<$0.offset + 12].elementsEqual(inner.utf8) })
        return Array(file[..<target.offset]) + replacement + Array(file[(target.offset + target.size)...])
    }

    static func stderrLines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// Files libjxl 0.7 refuses, printing its reasons (djxl shows them: `JXL_FAILURE: Invalid huffman
    /// tree`, `cannot have jxlp box after last jxlp box`, `missing input`).
    static func damaged() throws -> [(name: String, bytes: [UInt8])] {
        let lossy = try TestSupport.bytes(Self.lossy)
        let container = try TestSupport.bytes(Self.recompressed)
        var flipped = lossy
        for index in stride(from: 40, to: 120, by: 3) { flipped[index] ^= 0x5A }
        var lastFirst = container   // the first jxlp box marked as the last one
        let jxlp = try #require(boxes(container).first { $0.type == "jxlp" })
        lastFirst[jxlp.offset + 8] |= 0x80
        var swapped = container   // the jxlp boxes' indexes swapped
        let parts = boxes(container).filter { $0.type == "jxlp" }
        for byte in 0..<4 { swapped.swapAt(parts[0].offset + 8 + byte, parts[1].offset + 8 + byte) }
        return [("flipped", flipped), ("jxlp-last-first", lastFirst), ("jxlp-swapped", swapped),
                ("cut-codestream", Array(lossy.prefix(150))), ("cut-container", Array(container.prefix(700))),
                ("cut-in-last-box", Array(container.dropLast(40)))]
    }

    @Test func aDamagedFileGetsImgprepsOneLineOnly() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, bytes) in try Self.damaged() {
            let path = dir.appendingPathComponent("\(name).jxl").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let out = dir.appendingPathComponent("out-\(name)")
            let convert = try TestSupport.imgprep(["convert", path, "--to", "png", "-o", out.path])
            #expect(convert.status == 1, "\(name): exit \(convert.status)")
            let lines = Self.stderrLines(convert.stderr)
            #expect(lines.count == 2 && lines[0].hasPrefix("imgprep: \(path): decode: libjxl:") && lines[1].hasPrefix("0 converted, 0 skipped, 1 failed"),
                    "\(name): \(convert.stderr)")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: out.path))?.isEmpty ?? true, "\(name): an output was left")
            // info reads headers and boxes, not the picture: damage past them is not its to see.
            let info = try TestSupport.imgprep(["info", path])
            let infoLines = Self.stderrLines(info.stderr)
            if info.status == 0 {
                #expect(infoLines.isEmpty && info.stdout.contains("JPEG XL"), "\(name): \(info.stderr)")
            } else {
                #expect(info.status == 1 && infoLines.count == 1 && infoLines[0].hasPrefix("imgprep: \(path):"), "\(name): \(info.stderr)")
            }
        }
    }

    /// The same files in one batch, in workers (the default) and in this process (IMGPREP_ISOLATION=off),
    /// several at a time: one line per file, and libjxl's own lines nowhere.
    @Test(arguments: ["on", "off"])
    func aBatchOfDamagedFilesGetsOneLineEach(isolation: String) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try Self.damaged()
        var paths: [String] = []
        for (name, bytes) in files {
            paths.append(dir.appendingPathComponent("\(name).jxl").path)
            try Data(bytes).write(to: URL(fileURLWithPath: paths.last!))   // just appended
        }
        let run = try TestSupport.imgprep(["convert", "-j", "3", "--to", "png", "-o", dir.appendingPathComponent("out").path] + paths,
                                          environment: TestSupport.environment(adding: ["IMGPREP_ISOLATION": isolation]))
        #expect(run.status == 1, "exit \(run.status)")
        let lines = Self.stderrLines(run.stderr)
        #expect(lines.count == files.count + 1, "\(run.stderr)")
        for path in paths {
            #expect(lines.filter { $0.hasPrefix("imgprep: \(path): decode: libjxl:") }.count == 1, "\(path): \(run.stderr)")
        }
        #expect(lines.last?.hasPrefix("0 converted, 0 skipped, \(files.count) failed") == true, "\(run.stderr)")
    }

    /// A damaged or cut compressed Exif box, or one holding nonsense, costs the Exif alone: the picture
    /// and the XMP are written, with one warning.
    @Test func aBadCompressedExifBoxIsDroppedWithAWarning() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try TestSupport.bytes(Self.recompressed)
        let exifBox = try #require(Self.boxes(file).first { $0.type == "brob" && file[$0.offset + 8..<$0.offset + 12].elementsEqual("Exif".utf8) })
        let compressed = Array(file[(exifBox.offset + 12)..<(exifBox.offset + exifBox.size)])
        let cases: [(String, [UInt8])] = [
            ("flipped", Array("Exif".utf8) + compressed.enumerated().map { $0.offset >= 4 && $0.offset % 2 == 0 ? $0.element ^ 0xA5 : $0.element }),
            ("cut", Array("Exif".utf8) + compressed.prefix(compressed.count / 2)),
            ("trailing-bytes", Array("Exif".utf8) + compressed + [1, 2, 3]),
            ("not-brotli", Array("Exif".utf8) + Array(repeating: 0xFF, count: 64)),
        ]
        for (name, payload) in cases {
            let path = dir.appendingPathComponent("\(name).jxl").path
            try Data(try Self.replacingBrob("Exif", with: Self.box("brob", payload))).write(to: URL(fileURLWithPath: path))
            let out = dir.appendingPathComponent(name)
            let run = try TestSupport.imgprep(["convert", path, "--to", "jpeg", "-o", out.path])
            #expect(run.status == 0, "\(name): exit \(run.status): \(run.stderr)")
            #expect(run.stderr.contains("\(path): warning: the JPEG XL file's compressed Exif box is damaged and was left out"), "\(name): \(run.stderr)")
            #expect(!run.stderr.contains("JXL_") && !run.stderr.contains(".cc:"), "\(name): \(run.stderr)")
            let output = out.appendingPathComponent("\(name).jpg").path
            let decoded = try TestSupport.decode(output)
            #expect(decoded.width == 160 && decoded.height == 120, "\(name)")
            let tags = try TestSupport.exiftool(output)
            #expect(tags["GPSLatitude"] == nil, "\(name): the Exif was not dropped")
            let xmp = String(decoding: try #require(try JXLDecoder().decode(try TestSupport.bytes(path), options: DecodeOptions(maxPixels: 1 << 30)).metadata.xmp),
                             as: UTF8.self)
            #expect(xmp.contains("imgprep jxl fixture"), "\(name): the XMP went too")
            let info = try TestSupport.imgprep(["info", path])
            #expect(info.status == 0 && info.stdout.contains("160x120"), "\(name): \(info.stderr)")
        }
    }

    /// Brotli streams from the test venv's imagecodecs (its own libbrotli): `count` zero bytes.
    static func brotliZeros(_ count: Int, in dir: URL) throws -> [UInt8] {
        let path = dir.appendingPathComponent("zeros-\(count).br").path
        let script = "import sys, imagecodecs; open(sys.argv[1], 'wb').write(imagecodecs.brotli_encode(bytes(\(count)), level=5))"
        let run = try TestSupport.run(IndependentUltraHDRReader.python, ["-c", script, path])
        try #require(run.status == 0, "\(run.stderr)")
        return try TestSupport.bytes(path)
    }

    @Test(.enabled(if: IndependentUltraHDRReader.available, "no .venv-test (make testenv): Brotli bombs are made with its imagecodecs"))
    func aMetadataBombStopsAtTheCap() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 256 MB of zeros in a few hundred bytes: the reader stops once the output passes the cap.
        let bomb = try Self.brotliZeros(256 << 20, in: dir)
        #expect(bomb.count < 4096)
        #expect(BrotliStream.decompress(bomb[...], limit: 1 << 20) == .failure(.overLimit))
        let small = try Self.brotliZeros(3 << 20, in: dir)
        #expect(BrotliStream.decompress(small[...], limit: 4 << 20) == .success([UInt8](repeating: 0, count: 3 << 20)))
        #expect(BrotliStream.decompress(small[...], limit: 3 << 20 - 1) == .failure(.overLimit))
        for inner in ["Exif", "xml "] {
            let path = dir.appendingPathComponent("bomb-\(inner.prefix(3)).jxl").path
            try Data(try Self.replacingBrob(inner, with: Self.box("brob", Array(inner.utf8) + bomb))).write(to: URL(fileURLWithPath: path))
            let read = try JXLFile(try TestSupport.bytes(path), maxPixels: 1 << 30)
            #expect(read.warnings.contains { $0.contains("expands to over \(JXLFile.maxBoxBytes >> 20) MB") }, "\(inner): \(read.warnings)")
            let out = dir.appendingPathComponent("out")
            let run = try TestSupport.imgprep(["convert", path, "--to", "png", "-o", out.path])
            #expect(run.status == 0 && run.stderr.contains("box expands to over 16 MB and was left out"), "\(inner): \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("bomb-\(inner.prefix(3)).png").path))
            let info = try TestSupport.imgprep(["info", path])
            #expect(info.status == 0 && info.stdout.contains("160x120") && info.stderr.isEmpty, "\(inner): \(info.stderr)")
        }
    }
}
