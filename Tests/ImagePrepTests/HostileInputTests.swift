import Foundation
import Testing
@testable import ImagePrep

/// Hand-made files and situations that once took the whole process down: each must now fail one file
/// with one clear line (or convert), never trap, hang, read without end or write wrong pixels.
/// The CLI cases run the real binary, so a regression shows as a failed test, not a crashed suite.
@Suite struct HostileInputTests {
    let photo = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path

    /// Runs the binary in `dir` with a shell command line (`$IMGPREP` is the binary), under a memory
    /// ceiling and a time limit, so a regression cannot take the machine or the suite with it.
    static func shell(_ script: String, in dir: URL) throws -> TestSupport.Run {
        try TestSupport.run("bash", ["-c", "ulimit -v 4000000; IMGPREP='\(TestSupport.binary)' timeout 60 bash -c '\(script)'"], cwd: dir)
    }

    /// The lines of stderr that are about `name` (errors and warnings), excluding the summary.
    static func lines(about name: String, in stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.hasPrefix("imgprep: \(name): ") }
    }

    // MARK: PNG whose size overflows

    @Test func pngWhoseSizeOverflowsIsRefusedFromItsHeader() throws {
        let png = HostileFiles.pngHeaderOnly(width: .max, height: .max)
        #expect(png.count == 45)
        #expect { try PNGDecoder.decode(png, maxPixels: 300_000_000) } throws: { ($0 as? ImagePrepError)?.kind == .tooLarge }
        #expect(throws: ImagePrepError.self) { try ImagePipeline.prepare(png, settings: ConversionSettings()) }
        #expect(throws: ImagePrepError.self) { try ImageInspector.inspect(png) }

        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(png).write(to: dir.appendingPathComponent("huge.png"))
        for command in ["convert", "info"] {
            let run = try Self.shell("$IMGPREP \(command) huge.png", in: dir)
            #expect(run.status == 1, "\(command): status \(run.status)\n\(run.stderr)")
            #expect(Self.lines(about: "huge.png", in: run.stderr).count == 1, "\(command): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("huge.jpg").path))
    }

    // MARK: EXIF entry with count 0

    /// Orientation as a SHORT with no values: a 0-byte value, which once made the reader step by 0.
    static func jpegWithEmptyOrientation() throws -> [UInt8] {
        try HostileFiles.jpeg(exif: HostileFiles.tiff([.init(tag: 0x0112, type: 3, count: 0, value: 0)]))
    }

    @Test func exifEntryWithNoValuesIsReadAsAbsent() throws {
        let tiff = HostileFiles.tiff([.init(tag: 0x0112, type: 3, count: 0, value: 0)])
        #expect(Exif.orientation(in: tiff) == nil)
        let block = try TIFFBlock(tiff)
        let entry = try #require(try block.directory(at: 8, "IFD0").entries.first)
        #expect(try block.integers(entry) == [])
        // An Orientation with no value cannot be set to 1, so the EXIF is dropped with a warning.
        #expect(throws: ImagePrepError.self) { try Exif.patch(tiff, options: ExifPatchOptions(orientation: 1)) }
    }

    @Test func jpegWithEmptyExifEntryConvertsAndInfoShowsIt() throws {
        let jpeg = try Self.jpegWithEmptyOrientation()
        #expect(jpeg.count < 400)
        let prepared = try ImagePipeline.prepare(jpeg, settings: ConversionSettings())
        #expect(prepared.width == 8 && prepared.height == 8)
        // Nothing asks for a change, so the JPEG is carried losslessly and its EXIF byte for byte: no warning.
        #expect(prepared.warnings.isEmpty, "\(prepared.warnings)")
        #expect(prepared.bytes == jpeg)

        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(jpeg).write(to: dir.appendingPathComponent("empty-count.jpg"))
        let convert = try Self.shell("$IMGPREP convert empty-count.jpg -o out", in: dir)
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(Self.lines(about: "empty-count.jpg", in: convert.stderr).isEmpty, "\(convert.stderr)")
        #expect(try TestSupport.decode(dir.appendingPathComponent("out/empty-count.jpg").path).width == 8)
        let info = try Self.shell("$IMGPREP info empty-count.jpg", in: dir)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("size:         8x8"), "\(info.stdout)")
    }

    // MARK: One-letter output directory

    @Test(arguments: [
        ("a", "", "a"), ("a/b.jpg", "a", "b.jpg"), ("b.jpg", "", "b.jpg"), ("/x", "/", "x"), ("/", "/", ""),
        ("a//b/", "a", "b"), ("out/a/", "out", "a"), ("./a", ".", "a"), ("é/ü", "é", "ü"),
    ])
    func pathsSplitIntoDirectoryAndName(_ row: (String, String, String)) {
        let (directory, name) = RawPath.split(row.0)
        #expect(directory == row.1 && name == row.2, "\(row.0) → (\(directory), \(name))")
    }

    @Test func oneLetterOutputDirectoryIsCreated() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: photo, toPath: dir.appendingPathComponent("photo.heic").path)
        for output in ["a", "b/", "c/d"] {
            let run = try Self.shell("$IMGPREP convert photo.heic -o \(output)", in: dir)
            #expect(run.status == 0, "-o \(output): status \(run.status)\n\(run.stderr)")
            #expect(try TestSupport.decode(dir.appendingPathComponent(output).appendingPathComponent("photo.jpg").path).width == 320)
        }
    }

    // MARK: Standard output that fails

    /// Six copies of the fixture, so files are still waiting when the report's reader goes away.
    static func batchDirectory() throws -> URL {
        let dir = try TestSupport.temporaryDirectory()
        for index in 1...6 {
            try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path,
                                             toPath: dir.appendingPathComponent("p\(index).heic").path)
        }
        return dir
    }

    static func outputs(in dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path)) ?? []).sorted()
    }

    @Test func jsonReportToAFullDiskStopsTheReportNotTheBatch() throws {
        let dir = try Self.batchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Self.shell("$IMGPREP convert p*.heic -o out --json -j 1 > /dev/full", in: dir)
        #expect(run.status == 0, "status \(run.status)\n\(run.stderr)")
        #expect(Self.outputs(in: dir) == (1...6).map { "p\($0).jpg" })
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("cannot write to standard output (No space left on device)"), "\(run.stderr)")
    }

    @Test func jsonReaderThatStopsEarlyDoesNotStopTheBatch() throws {
        let dir = try Self.batchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // `true` never reads, so every report line meets a closed pipe.
        for reader in ["head -1", "true"] {
            try? FileManager.default.removeItem(at: dir.appendingPathComponent("out"))
            let run = try Self.shell("$IMGPREP convert p*.heic -o out --json -j 1 | \(reader); exit ${PIPESTATUS[0]}", in: dir)
            #expect(run.status == 0, "\(reader): status \(run.status) (141 is SIGPIPE)\n\(run.stderr)")
            #expect(Self.outputs(in: dir) == (1...6).map { "p\($0).jpg" }, "\(reader)")
            #expect(run.stderr.isEmpty, "a closed pipe is not worth a line: \(run.stderr)")
        }
    }

    @Test func failedFileStillSetsTheStatusWhenTheReportIsLost() throws {
        let dir = try Self.batchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not an image".utf8).write(to: dir.appendingPathComponent("p7.heic"))
        let run = try Self.shell("$IMGPREP convert p*.heic -o out --json -j 1 > /dev/full", in: dir)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(Self.outputs(in: dir).count == 6)
    }

    // MARK: Reads with a limit

    @Test func devicesFIFOsAndProcFilesAreRefusedWithoutReading() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(mkfifo(dir.appendingPathComponent("fifo").path, 0o600) == 0)
        let cases = [("/dev/zero", "a character device"), ("fifo", "a FIFO"), ("/proc/self/status", "/proc")]
        for (path, reason) in cases {
            let run = try Self.shell("$IMGPREP convert \(path) -o out", in: dir)
            #expect(run.status == 1, "\(path): status \(run.status)\n\(run.stderr)")
            let lines = Self.lines(about: path, in: run.stderr)
            #expect(lines.count == 1 && lines[0].contains(reason), "\(path): \(run.stderr)")
        }
        let info = try Self.shell("$IMGPREP info /dev/zero", in: dir)
        #expect(info.status == 1 && info.stderr.contains("not a regular file"), "\(info.stderr)")
        // -r skips what is not a regular file instead of waiting on it.
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("tree"), withIntermediateDirectories: true)
        #expect(mkfifo(dir.appendingPathComponent("tree/fifo.heic").path, 0o600) == 0)
        try FileManager.default.copyItem(atPath: photo, toPath: dir.appendingPathComponent("tree/photo.heic").path)
        let recursive = try Self.shell("$IMGPREP convert -r tree -o out", in: dir)
        #expect(recursive.status == 0, "\(recursive.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/photo.jpg").path))
    }

    @Test func filesOverTheInputSizeLimitAreRefusedBeforeReading() throws {
        #expect(throws: ImagePrepError.self) { try InputFile.read(photo, maxBytes: 1000) }
        #expect(try InputFile.read(photo, maxBytes: 1_000_000) == TestSupport.bytes(photo))
        #expect(try InputFile.head(photo, count: 16) == Array(TestSupport.bytes(photo).prefix(16)))

        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["convert", photo, "--max-input-size", "5KB", "-o", dir.path])
        #expect(run.status == 1)
        let lines = Self.lines(about: photo, in: run.stderr)
        #expect(lines.count == 1 && lines[0].contains("over the --max-input-size limit of 5 KB"), "\(run.stderr)")
        let fits = try TestSupport.imgprep(["convert", photo, "--max-input-size", "1MB", "-o", dir.path])
        #expect(fits.status == 0, "\(fits.stderr)")
        let usage = try TestSupport.imgprep(["convert", photo, "--max-input-size", "lots"])
        #expect(usage.status == 2 && usage.stderr.contains("--max-input-size"), "\(usage.stderr)")
    }

    // MARK: JPEG with thousands of scans

    /// Each scan of a progressive JPEG is a pass over the whole picture: a file of tiny scans repeated
    /// thousands of times kept libjpeg busy in proportion. Past 256 scans the decode stops.
    @Test func jpegWithThousandsOfScansIsRefused() throws {
        let jpeg = try JPEGEncoder().encode(CodecTestSupport.gradient(width: 64, height: 64), quality: 80,
                                            settings: JPEGSettings(progressive: true))
        let scans = JPEGCodecTests.offsetsOfSOS(in: jpeg)
        let last = try #require(scans.last)
        let lastScan = Array(jpeg[last..<(jpeg.count - 2)])   // SOS to EOI
        let bomb = Array(jpeg[..<(jpeg.count - 2)]) + Array(Array(repeating: lastScan, count: 2000).joined()) + [0xFF, 0xD9]
        #expect(scans.count < 20)
        for decode in [{ _ = try JPEGDecoder.decode(bomb) }, { _ = try JPEGDecoder.decodePlanes(bomb) }] {
            #expect { try decode() } throws: { "\($0)".contains("more than 256 scans") }
        }
        #expect(try JPEGDecoder.decode(jpeg).width == 64)   // the file it came from is fine
    }

    // MARK: Box pre-shrink sums

    static func filled(width: Int, height: Int, _ colour: [UInt8]) -> PixelBuffer {
        PixelBuffer(width: width, height: height, channels: colour.count,
                    pixels: [UInt8](unsafeUninitializedCapacity: width * height * colour.count) { buffer, count in
                        for i in 0..<(width * height) {
                            for c in colour.indices { buffer[i * colour.count + c] = colour[c] }
                        }
                        count = width * height * colour.count
                    })
    }

    /// A 6000x6000 opaque white picture shrunk to 8x8: 750x750 blocks of 255 x 255 premultiplied
    /// samples sum past 2^32, which once wrapped to grey (15, 15, 15).
    @Test func largeOpaqueWhiteStaysWhiteWhenShrunkALot() {
        let white = Self.filled(width: 6000, height: 6000, [255, 255, 255, 255])
        let result = resized(white, width: 8, height: 8)
        #expect(result == Self.filled(width: 8, height: 8, [255, 255, 255, 255]))
        let tinted = resized(Self.filled(width: 1040, height: 1040, [200, 100, 50, 255]), width: 2, height: 2, threads: 2)
        #expect(result.pixels.count == 256 && tinted == Self.filled(width: 2, height: 2, [200, 100, 50, 255]))
    }

    /// One plane of 8400x8400 to a single sample: a 4200x4200 block of 255 is more than 2^32.
    @Test func planeBlocksBeyondThirtyTwoBitsAverageExactly() {
        let (width, height) = (8400, 8400)
        let plane = [UInt8](repeating: 255, count: width * height)
        var out: [UInt8] = [0]
        plane.withUnsafeBufferPointer { source in
            resample(SampleGrid(base: source.baseAddress!, width: width, height: height, channels: 1, rowBytes: width),
                     span: (Double(width), Double(height)), scale: (Double(width), Double(height)),
                     into: &out, width: 1, height: 1, threads: 1)
        }
        #expect(out == [255])
    }

    /// Through the whole pipeline from a PNG, as a user meets it (the small case that also wrapped).
    @Test func whiteRGBAPNGShrunkThroughThePipelineIsWhite() throws {
        let png = try PNGEncoder.encode(Self.filled(width: 1040, height: 1040, [255, 255, 255, 255]),
                                        metadata: ImageMetadata(), compressionLevel: 1)
        var settings = ConversionSettings()
        settings.format = .png
        settings.maxDimension = 2
        let prepared = try ImagePipeline.prepare(png, settings: settings)
        // Opaque everywhere, so the PNG is written without its alpha channel.
        let (pixels, _) = try PNGDecoder.decode(prepared.bytes)
        #expect(pixels == Self.filled(width: 2, height: 2, [255, 255, 255]))
    }

    /// Rounding stays exact for blocks past the old 32-bit multiply-shift's range (64x64 samples): in each
    /// 500x500 block of a 1000x1000 picture, 125,001 samples of 127 and 124,999 of 128 average to
    /// 127.499996, which rounds down (the box output is uniform, so the Lanczos step keeps it).
    @Test func bigBlockAveragesRoundExactly() {
        let (width, height) = (1000, 1000)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let value: UInt8 = (x % 500) * 500 + y % 500 < 125_001 ? 127 : 128
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = value }
            }
        }
        var out: [UInt8] = [0, 0, 0]
        pixels.withUnsafeBufferPointer { source in
            resample(SampleGrid(base: source.baseAddress!, width: width, height: height, channels: 3, rowBytes: width * 3),
                     span: (1000, 1000), scale: (1000, 1000), into: &out, width: 1, height: 1, threads: 1)
        }
        #expect(out == [127, 127, 127])
    }

    /// A HEIF grid without `ispe`: libheif 1.15 decodes it but sizes it 0x0, and a resize planned from
    /// that size once broke a precondition (found by the pipeline fuzzer).
    @Test func heifWithoutASizeFailsAsCorruptAndTheBatchGoesOn() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = TestSupport.fixtures.appendingPathComponent("fuzz/pipeline/grid-without-ispe.heic").path
        let good = TestSupport.fixtures.appendingPathComponent("heic/gray.heic").path
        let run = try TestSupport.imgprep(["convert", bad, good, "--max-dimension", "33", "-o", dir.path, "--json"])
        #expect(run.status == 1, "\(run.stderr)")
        let lines = try BatchTests.jsonLines(run.stdout)
        let failed = lines.first { $0["input"] as? String == bad }
        #expect(failed?["error_kind"] as? String == "corrupt", "\(lines)")
        let message = (failed?["error"] as? String) ?? ""
        #expect(message.contains("no size"), "\(lines)")
        #expect(lines.contains { $0["input"] as? String == good && $0["status"] as? String == "ok" })
    }
}
