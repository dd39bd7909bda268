import Foundation
@testable import ImagePrep

/// What each fuzz target does with one input. `scripts/fuzz.sh` compiles this file with
/// `Fuzz/Harness.swift` into a libFuzzer binary; `FuzzRegressionTests` replays the committed
/// inputs of `Tests/Fixtures/fuzz/<target>/` through the same functions in an ordinary test run.
/// A target never throws: errors are the expected outcome for most inputs. `precondition`s state
/// promises the code makes, so the fuzzer reports a broken promise like a crash.
enum FuzzTarget: String, CaseIterable, Sendable {
    case sniff, isobmff, exif, xmp, jpegMarkers = "jpeg-markers", info, gif, jxl, pipeline

    func run(_ bytes: [UInt8]) {
        switch self {
        case .sniff: Self.sniff(bytes)
        case .isobmff: Self.isobmff(bytes)
        case .exif: Self.exif(bytes)
        case .xmp: Self.xmp(bytes)
        case .jpegMarkers: Self.jpegMarkers(bytes)
        case .info: _ = try? ImageInspector.inspect(bytes)
        case .gif: Self.gif(bytes)
        case .jxl: Self.jxl(bytes)
        case .pipeline: Self.pipeline(bytes)
        }
    }

    /// The pipeline's entry point, in one place: the only line to change if its name or signature does.
    static func prepare(_ bytes: [UInt8], _ settings: ConversionSettings) throws -> PreparedImage {
        try ImagePipeline.prepare(bytes, settings: settings)
    }

    private static func sniff(_ bytes: [UInt8]) {
        if case .success(let format) = FormatSniffer.sniff(bytes) {
            _ = HeaderProbe.header(of: bytes, format: format)   // what the batch's main process reads
        }
        _ = FormatSniffer.describe(bytes)
        _ = HeaderProbe.heif(bytes)
        _ = HeaderProbe.webp(bytes)
    }

    private static func isobmff(_ bytes: [UInt8]) {
        _ = HeifStructure(bytes)?.summaryLines
        for box in ISOBMFF.topLevelBoxes(bytes) { _ = ISOBMFF.children(of: box, in: bytes) }
        _ = HeifReferenceRepair.hasMultiTargetReferences(bytes)
        _ = try? HeifReferenceLoops.check(bytes)
        if let repaired = repairedForLibheif115(bytes) {
            // Every offset in the file must stay valid: the repair never changes the size.
            precondition(repaired.bytes.count == bytes.count, "iref repair changed the file's size")
            _ = HeifStructure(repaired.bytes)
        }
    }

    private static let exifOptions = [
        ExifPatchOptions(orientation: 1, pixelWidth: 640, pixelHeight: 480, stripGPS: true, maxBytes: 65_527),
        ExifPatchOptions(orientation: 1, pixelWidth: 70_000, pixelHeight: 1),
        ExifPatchOptions(stripGPS: true, maxBytes: 200),
    ]

    private static func exif(_ bytes: [UInt8]) {
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

    private static func xmp(_ bytes: [UInt8]) {
        _ = XMP.orientation(in: bytes)
        _ = XMP.hasLocation(bytes)
        if let patched = try? XMP.patch(bytes, resetOrientation: true, stripLocation: true) {
            precondition(!XMP.hasLocation(patched), "location survived --strip-location in XMP")
        }
        if case .success(let values)? = GainMapXMP.metadata(in: bytes) { checkGainMapValues(values) }
        var metadata = ImageMetadata(xmp: bytes)
        var warnings: [String] = []
        GainMapPlan.withoutClaims(&metadata, warnings: &warnings)
        precondition(metadata.xmp.map(GainMapClaims.inPacket) != true, "a gain-map claim survived its removal")
    }

    /// What `GainMapMetadata.validated` promises readers (libultrahdr's checks among them).
    private static func checkGainMapValues(_ values: GainMapMetadata) {
        precondition(values.gamma > 0 && values.offsetSDR >= 0 && values.offsetHDR >= 0 && values.gainMapMax >= values.gainMapMin
                     && values.hdrCapacityMin >= 0 && values.hdrCapacityMax > values.hdrCapacityMin
                     && values.headroom <= exp2(GainMapMetadata.maxStops), "gain-map values out of range passed the checks")
    }

    private static func jpegMarkers(_ bytes: [UInt8]) {
        if case .success(let values)? = ISOGainMapBlock.metadata(in: bytes) { checkGainMapValues(values) }
        let reading = JPEGGainMapReader.read(bytes, primaryEXIF: nil, decodes: true)
        if let values = reading.gainMap?.metadata { checkGainMapValues(values) }
        precondition(reading.headroom.map { $0.isFinite && $0 <= exp2(GainMapMetadata.maxStops) } != false, "headroom out of range")
        let (metadata, _) = JPEGMarkers.metadata(in: bytes)
        _ = JPEGMarkers.estimatedQuality(of: bytes)
        _ = HeaderProbe.jpeg(bytes)
        if let exif = metadata.exif { _ = Exif.orientation(in: exif) }
        // The whole file as Photoshop resources too: the IPTC parser meets arbitrary bytes either way.
        for resources in [metadata.iptc, bytes].compactMap({ $0 }) {
            _ = IPTC.iim(in: resources)
            if let stripped = try? IPTC.strippingLocation(resources) {
                precondition(!IPTC.hasLocation(stripped), "location survived --strip-location in IPTC")
            }
        }
    }

    /// The GIF record walk, giflib's decoding and compositing, and the animation written as WebP and read
    /// back: what the headers promise (size, frames, the pixel cap) is what comes out.
    private static func gif(_ bytes: [UInt8]) {
        let probed = HeaderProbe.gif(bytes)
        let options = DecodeOptions(maxPixels: 1 << 18, keepsAnimation: true)
        guard let decoded = try? GIFDecoder().decode(bytes, options: options) else { return }
        guard let header = probed else { preconditionFailure("decoded a GIF whose header the probe cannot read") }
        precondition(header.pixelCount <= options.maxPixels, "decoded a GIF over the pixel cap")
        precondition((decoded.content.width, decoded.content.height) == (header.width, header.height), "decoded size differs from the header")
        if case .animation(let animation) = decoded.content {
            precondition(animation.frames.count == header.frames, "frame count differs from the header")
            precondition(animation.frames.allSatisfy { $0.duration >= 20 }, "a frame shorter than browsers play it")
        } else {
            precondition(header.frames == 1, "an animated GIF decoded as a still picture")
        }
        guard let webp = try? WebPEncoder(lossless: bytes.count % 2 == 0).encode(decoded.content, quality: 50, metadata: decoded.metadata),
              let back = try? WebPDecoder().decode(webp, options: options) else { return }
        precondition((back.content.width, back.content.height) == (header.width, header.height), "the WebP written has another size")
    }

    /// The JPEG XL header probe (our Swift) against libjxl's basic info, the decode under a small pixel cap,
    /// and the box rewrite: what the probe reads is what libjxl decodes.
    private static func jxl(_ bytes: [UInt8]) {
        _ = JXLStructure.boxes(bytes)
        let probed = JXLStructure.header(bytes)
        let options = DecodeOptions(maxPixels: 1 << 18)
        if let header = try? JXLDecoder().header(of: bytes), let probed {
            precondition((header.width, header.height) == (probed.width, probed.height), "the probe and libjxl disagree on the size")
        }
        _ = try? JXLBoxes.uncompressed(bytes)
        guard let decoded = try? JXLDecoder().decode(bytes, options: options) else { return }
        precondition(decoded.content.width * decoded.content.height <= options.maxPixels, "decoded a JPEG XL over the pixel cap")
        if let probed {
            precondition((decoded.content.width, decoded.content.height) == (probed.width, probed.height), "decoded size differs from the probe")
        }
    }

    /// Small pictures only (a quarter megapixel), so each input takes milliseconds; the input's length
    /// picks one of four setting mixes, so every path (PNG, resize, budget search, sRGB conversion) gets its
    /// share.
    private static func pipeline(_ bytes: [UInt8]) {
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
