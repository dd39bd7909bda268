import Foundation
import Testing
@testable import ImagePrep

/// Every device photo of the corpus (a camera model in MANIFEST.tsv) to WebP, AVIF and HEIC at their
/// default qualities, read back by decoders that are not ours (dwebp, avifdec, heif-convert) and by
/// exiftool. Decoded once and brought to 1024 pixels, so the 17 photos x 3 formats stay affordable;
/// one photo also goes through the whole command at full size.
@Suite(.serialized) struct CorpusWebFormatsTests {
    static let devicePhotos: [String] = CorpusSupport.manifest
        .filter { $0.key.hasPrefix("heic/") && $0.value.features.contains("camera=") }.keys.sorted()
    static let formats: [OutputFormat] = [.webp, .avif, .heic]

    @Test(.enabled(if: TestSupport.corpus != nil, "needs the shared corpus (set IMGPREP_CORPUS)"))
    func everyDevicePhotoConvertsUprightWithItsPixelsAndMetadata() throws {
        let corpus = try #require(TestSupport.corpus)
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(Self.devicePhotos.count >= 15, "\(Self.devicePhotos)")
        var outputs: [(source: String, output: String)] = []
        var lowest: [OutputFormat: (psnr: Double, photo: String)] = [:]
        for photo in Self.devicePhotos {
            let source = corpus.appendingPathComponent(photo).path
            let file = try TestSupport.bytes(source)
            let format = try FormatSniffer.sniff(file).get()
            let decoded = try DecoderRegistry.decoder(for: format).decode(file, options: DecodeOptions(maxPixels: 300_000_000, threads: 2))
            var picture = decoded.content.oriented(decoded.orientation)
            let fitted = fittedSize(width: picture.width, height: picture.height, maxDimension: 1024)
            if fitted.width != picture.width { picture = picture.resized(width: fitted.width, height: fitted.height, threads: 2) }
            let reference = picture.rgb()
            for format in Self.formats {
                var settings = ConversionSettings()
                settings.format = format
                settings.quality = format.defaultQuality
                settings.maxDimension = 1024
                let encoder = EncoderRegistry.encoder(for: settings, searching: false, threads: 2)
                let prepared = try OutputEncoding.encode(picture, with: encoder, metadata: decoded.metadata, settings: settings,
                                                         threads: 2, warnings: [])
                let name = URL(fileURLWithPath: photo).deletingPathExtension().lastPathComponent
                let output = out.appendingPathComponent("\(name).\(format.fileExtension)").path
                try Data(prepared.bytes).write(to: URL(fileURLWithPath: output))
                let decodedBack = try WebOutputTests.decodeIndependently(output, to: out.appendingPathComponent("back.png").path)
                #expect((decodedBack.width, decodedBack.height) == (reference.width, reference.height), "\(photo) \(format): not upright")
                if (decodedBack.width, decodedBack.height) == (reference.width, reference.height) {
                    let psnr = TestSupport.psnr(decodedBack, reference)
                    #expect(psnr >= 32, "\(photo) \(format): \(psnr) dB")
                    if psnr < lowest[format]?.psnr ?? .infinity { lowest[format] = (psnr, photo) }
                }
                outputs.append((source, output))
            }
        }
        print("device photos to WebP/AVIF/HEIC at default quality (\(Self.devicePhotos.count) photos), lowest PSNR: "
              + Self.formats.map { "\($0.rawValue) \(String(format: "%.1f", lowest[$0]?.psnr ?? 0)) dB (\(lowest[$0]?.photo ?? ""))" }.joined(separator: ", "))
        // Metadata as exiftool reads it, one call for every file.
        let paths = Array(Set(outputs.flatMap { [$0.source, $0.output] }))
        let run = try TestSupport.run("exiftool", ["-j", "-n", "-G1", "-a", "-Model", "-GPSLatitude", "-GPSLongitude",
                                                   "-Orientation", "-ICC_Profile:ProfileDescription", "-ICC_Profile:ProfileClass"] + paths)
        let tags = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        let byFile = Dictionary(uniqueKeysWithValues: tags.compactMap { entry in (entry["SourceFile"] as? String).map { ($0, entry) } })
        for (source, output) in outputs {
            let before = byFile[source] ?? [:], after = byFile[output] ?? [:]
            #expect("\(after["IFD0:Model"] ?? "none")" == "\(before["IFD0:Model"] ?? "none")", "\(output): camera model")
            for tag in ["GPS:GPSLatitude", "GPS:GPSLongitude"] {
                #expect("\(after[tag] ?? "none")" == "\(before[tag] ?? "none")", "\(output): \(tag)")
            }
            #expect(after["IFD0:Orientation"] == nil || after["IFD0:Orientation"] as? Int == 1, "\(output): orientation")
            if let profile = before["ICC_Profile:ProfileDescription"] as? String {
                #expect(after["ICC_Profile:ProfileDescription"] as? String == profile, "\(output): ICC")
            } else {
                // nclx code points: a profile we make for them (or none when they are not SDR-describable).
                #expect(after["ICC_Profile:ProfileDescription"] == nil || (after["ICC_Profile:ProfileDescription"] as? String)?.hasPrefix("imgprep") == true,
                        "\(output): \(after["ICC_Profile:ProfileDescription"] ?? "")")
            }
        }
    }

    /// The whole command at full size: an iPhone photo stored turned (irot), 4032x3024 upright.
    @Test(.enabled(if: TestSupport.corpus != nil, "needs the shared corpus (set IMGPREP_CORPUS)"))
    func aTurnedIPhonePhotoAtFullSize() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let source = try #require(TestSupport.corpus).appendingPathComponent("heic/libvips__heic-orientation-6.heic").path
        let reference = out.appendingPathComponent("reference.png").path
        #expect(try TestSupport.run("heif-convert", [source, reference]).status == 0)
        let expected = try TestSupport.decode(reference)
        for format in Self.formats {
            let run = try TestSupport.imgprep(["convert", source, "--to", format.rawValue, "-o", out.path])
            #expect(run.status == 0, "\(run.stderr)")
            let output = out.appendingPathComponent("libvips__heic-orientation-6.\(format.fileExtension)").path
            let pixels = try WebOutputTests.decodeIndependently(output, to: out.appendingPathComponent("back.png").path)
            #expect((pixels.width, pixels.height) == (3024, 4032), "\(format)")
            if (pixels.width, pixels.height) == (expected.width, expected.height) {
                let psnr = TestSupport.psnr(pixels, expected)
                #expect(psnr >= 32, "\(format): \(psnr) dB")
            }
            let tags = try TestSupport.exiftool(output)
            #expect(tags["IFD0:Model"] as? String == "iPhone XS" && tags["GPS:GPSLatitude"] != nil, "\(format): \(tags["IFD0:Model"] ?? "")")
            #expect(tags["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        }
    }
}
