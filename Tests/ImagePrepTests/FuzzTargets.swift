import Foundation
@testable import ImagePrep

/// What each fuzz target does with one input. `scripts/fuzz.sh` compiles this file and
/// `FormatFuzzTargets/` with `Fuzz/Harness.swift` into a libFuzzer binary; `FuzzRegressionTests` replays
/// the committed inputs of `Tests/Fixtures/fuzz/<target>/` through the same functions in an ordinary
/// test run. A target never throws: errors are the expected outcome for most inputs. `precondition`s
/// state promises the code makes, so the fuzzer reports a broken promise like a crash.
struct FuzzTarget: Sendable {
    /// What `IMGPREP_FUZZ_TARGET` and `Tests/Fixtures/fuzz/` call it.
    let name: String
    /// The longest input libFuzzer makes up for it (`-max_len`).
    let maxLength: Int
    let run: @Sendable ([UInt8]) -> Void

    init(_ name: String, maxLength: Int = 524_288, run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.maxLength = maxLength
        self.run = run
    }

    /// Every target: those of the shared code, then each format's own (declared in its file in
    /// `FormatFuzzTargets/`), which a new format adds its line for.
    static let all: [FuzzTarget] = [
        .sniff, .exif, .xmp, .info, .pipeline,
        .isobmff, .jpegMarkers, .gif, .jxl, .jxlBoxes, .heicGrid,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    static let sniff = FuzzTarget("sniff", maxLength: 4096, run: fuzzSniff)
    static let exif = FuzzTarget("exif", maxLength: 131_072, run: fuzzEXIF)
    static let xmp = FuzzTarget("xmp", maxLength: 131_072, run: fuzzXMP)
    static let info = FuzzTarget("info") { _ = try? ImageInspector.inspect($0) }
    static let pipeline = FuzzTarget("pipeline", run: fuzzPipeline)

    /// The pipeline's entry point, in one place: the only line to change if its name or signature does.
    static func prepare(_ bytes: [UInt8], _ settings: ConversionSettings) throws -> PreparedImage {
        try ImagePipeline.prepare(bytes, settings: settings)
    }

    private static func fuzzSniff(_ bytes: [UInt8]) {
        if case .success(let format) = FormatSniffer.sniff(bytes) {
            _ = HeaderProbe.header(of: bytes, format: format)   // what the batch's main process reads
        }
        _ = FormatSniffer.describe(bytes)
        for reader in Formats.readers { _ = reader.probeHeader(bytes) }   // each probe meets every format's bytes
    }

    private static let exifOptions = [
        ExifPatchOptions(orientation: 1, pixelWidth: 640, pixelHeight: 480, stripGPS: true, maxBytes: 65_527),
        ExifPatchOptions(orientation: 1, pixelWidth: 70_000, pixelHeight: 1),
        ExifPatchOptions(stripGPS: true, maxBytes: 200),
    ]

    private static func fuzzEXIF(_ bytes: [UInt8]) {
        for tiff in [bytes] + (Exif.tiff(fromHeifExifItem: bytes).map { [$0] } ?? []) {
            _ = Exif.orientation(in: tiff)
            _ = Exif.hasGPS(tiff)
            _ = ExifSummary.fields(of: tiff)   // libexif, as `info` uses it
            for options in exifOptions {
                guard let result = try? Exif.patch(tiff, options: options) else { continue }
                precondition(result.tiff.count <= tiff.count, "EXIF grew when patched")
                precondition(result.tiff.count <= options.maxBytes ?? .max, "EXIF over maxBytes after patching")
                precondition(!options.stripGPS || !Exif.hasGPS(result.tiff), "GPS survived --strip-gps")
            }
        }
    }

    private static func fuzzXMP(_ bytes: [UInt8]) {
        _ = XMP.orientation(in: bytes)
        _ = XMP.hasLocation(bytes)
        if let patched = try? XMP.patch(bytes, resetOrientation: true, stripLocation: true) {
            precondition(!XMP.hasLocation(patched), "location survived --strip-location in XMP")
        }
        if case .success(let values)? = GainMapXMP.metadata(in: bytes) { checkGainMapValues(values) }
        if case .success(let values)? = ISOGainMapBlock.metadata(in: ISOGainMapBlock.header + bytes) { checkGainMapValues(values) }
        var metadata = ImageMetadata(xmp: bytes)
        var warnings: [String] = []
        GainMapPlan.withoutClaims(&metadata, warnings: &warnings)
        precondition(metadata.xmp.map(GainMapClaims.inPacket) != true, "a gain-map claim survived its removal")
    }

    /// What `GainMapMetadata.validated` promises readers (libultrahdr's checks among them).
    static func checkGainMapValues(_ values: GainMapMetadata) {
        precondition(values.channels.count == 1 || values.channels.count == 3, "gain-map values for two or four channels passed the checks")
        for channel in values.channels {
            precondition(channel.gamma > 0 && channel.offsetSDR >= 0 && channel.offsetHDR >= 0 && channel.gainMapMax >= channel.gainMapMin,
                         "gain-map channel values out of range passed the checks")
        }
        precondition(values.hdrCapacityMin >= 0 && values.hdrCapacityMax > values.hdrCapacityMin
                     && values.headroom <= exp2(GainMapMetadata.maxStops), "gain-map values out of range passed the checks")
    }

    /// Small pictures only (a quarter megapixel), so each input takes milliseconds; the input's length
    /// picks one of four setting mixes, so every path (PNG, resize, budget search, sRGB conversion) gets its
    /// share.
    private static func fuzzPipeline(_ bytes: [UInt8]) {
        var settings = ConversionSettings()
        settings.maxPixels = 1 << 18
        switch bytes.count % 4 {
        case 0: break
        case 1:
            settings.format = .png
            settings.maxDimension = 64
        case 2:
            settings.budget = ByteBudget(maxBytes: 8_000)
            settings.maxDimension = 200
            settings.stripLocation = true
        default:
            settings.quality = 95
            settings.subsampling = .s444
            settings.maxDimension = 33
            settings.color = .srgb   // the source's ICC profile goes through LittleCMS
        }
        guard let prepared = try? prepare(bytes, settings) else { return }
        precondition(prepared.width > 0 && prepared.height > 0, "empty picture prepared")
        if let budget = settings.budget, !prepared.passedThrough {
            precondition(prepared.bytes.count <= budget.maxBytes, "output over the byte budget")
        }
    }
}
