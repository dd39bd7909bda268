import Foundation
import Testing
@testable import ImagePrep

/// A real browser resolves the manifest's markup: headless Chromium at three viewport widths and two
/// pixel ratios (two Chromium runs in all, shared by the tests here), over variants made by libvips
/// (AVIF through heifsave with AV1, WebP, JPEG at three widths) from a fixture, in a folder whose name has
/// a space and accents, listed through the `Manifest` API.
@Suite(.enabled(if: BrowserCheck.available && TestSupport.toolExists("vips") && TestSupport.toolExists("vipsthumbnail"),
                "needs Debian's chromium and libvips' vips and vipsthumbnail"))
struct BrowserCheckTests {
    static let widths = [360, 800, 1400]
    static let pixelRatios: [Double] = [1, 2]
    static let variantWidths = [400, 800, 1600]
    static let folder = "set été"
    static let hostileAlt = #""><script>__imgprepInjected('script')</script><img src=x onerror="__imgprepInjected('onerror')">"#
    static let otherAlt = #"' onerror='__imgprepInjected(3)' x='&amp;"#

    struct Setup {
        var manifest: Manifest
        var reports: [BrowserCheck.Report]
    }

    /// Made once: the variants, the manifest and the two Chromium runs; the folder is gone afterwards.
    static let setup: Result<Setup, any Error> = Result {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let set = dir.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
        let source = TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path
        var variants: [ManifestVariant] = []
        for format in ["jpeg", "avif", "webp"] {  // AVIF and WebP are made from the JPEG of their width
            for width in variantWidths {
                let name = "photo 1-\(width).\(format)"
                let path = set.appendingPathComponent(name).path
                let jpeg = set.appendingPathComponent("photo 1-\(width).jpeg").path
                let run: TestSupport.Run
                switch format {
                // The fixture is 320 px wide: vipsthumbnail enlarges it, which is all this needs (only the sizes matter).
                case "jpeg": run = try TestSupport.run("vipsthumbnail", [source, "-s", "\(width)x", "-o", path + "[Q=80]"])
                case "avif": run = try TestSupport.run("vips", ["heifsave", jpeg, path, "--compression", "av1", "--effort", "0", "--Q", "50"])
                default: run = try TestSupport.run("vips", ["webpsave", jpeg, path, "--Q", "70"])
                }
                guard run.status == 0 else { throw BrowserCheck.Failure(description: "making \(name): \(run.stderr)") }
            }
        }
        for format in ["avif", "webp", "jpeg"] {
            for width in variantWidths {
                let path = "\(folder)/photo 1-\(width).\(format)"
                let bytes = try TestSupport.bytes(dir.appendingPathComponent(path).path).count
                variants.append(ManifestVariant(format: format, width: width, height: width * 3 / 4, bytes: bytes, path: path))
            }
        }
        func entry(_ alt: String, baseURL: String?) -> ManifestEntry {
            ManifestEntry(width: 1600, height: 1200, alt: alt, color: "#808080", placeholder: nil, variants: variants, sizes: "100vw", baseURL: baseURL)
        }
        let manifest = Manifest(images: [
            ManifestSource("\(folder)/photo 1.heic"): entry(hostileAlt, baseURL: nil),
            "other.heic": entry(otherAlt, baseURL: nil),
            // The folder's own file URL as --base-url: the joined, percent-encoded URLs must resolve.
            "based.heic": entry("", baseURL: dir.absoluteString),
        ])
        let manifestFile = dir.appendingPathComponent("images.json")
        try Data(manifest.encoded()).write(to: manifestFile)
        return Setup(manifest: manifest, reports: try BrowserCheck.run(manifestFile: manifestFile, widths: widths, pixelRatios: pixelRatios))
    }

    private func frames() throws -> [(report: BrowserCheck.Report, frame: BrowserCheck.Frame)] {
        let setup = try Self.setup.get()
        #expect(setup.reports.map(\.devicePixelRatio) == Self.pixelRatios)
        let frames = setup.reports.flatMap { report in report.frames.map { (report, $0) } }
        #expect(frames.count == Self.widths.count * Self.pixelRatios.count)
        return frames
    }

    @Test func currentSrcIsAnAVIFVariantOfAListedWidth() throws {
        let avif = Set(try Self.setup.get().manifest.images.values.flatMap(\.variants).filter { $0.format == "avif" }.map(\.path))
        for (report, frame) in try frames() {
            #expect(frame.innerWidth == frame.requestedWidth)
            #expect(frame.devicePixelRatio == report.devicePixelRatio)
            #expect(frame.entries.count == 3)
            for image in frame.entries {
                #expect(image.found && image.complete, "\(image)")
                #expect(avif.contains(image.currentSrc), "\(frame.requestedWidth)@\(report.devicePixelRatio)x: \(image.source) chose \(image.currentSrc)")
            }
        }
    }

    /// With sizes=100vw a frame w px wide at ratio d wants w·d pixels: the smallest candidate at least that
    /// wide, or the largest when none is. Here no need falls near the midpoint of two candidates, where
    /// browsers may round down.
    @Test func theChosenWidthIsWhatTheDescriptorsAndSizesImply() throws {
        let heights = Dictionary(uniqueKeysWithValues: Self.variantWidths.map { ($0, $0 * 3 / 4) })
        for (report, frame) in try frames() {
            let need = Double(frame.requestedWidth) * report.devicePixelRatio
            let expected = Self.variantWidths.first { Double($0) >= need } ?? Self.variantWidths.last!
            for image in frame.entries {
                #expect(image.currentSrc == "\(Self.folder)/photo 1-\(expected).avif",
                        "\(frame.requestedWidth)@\(report.devicePixelRatio)x needs \(need) px: \(image.currentSrc)")
                // The w descriptor scales the natural size to the sizes length (100vw), so the browser read it
                // (within a pixel: Chromium rounds the density's quotient down).
                #expect(abs(image.naturalWidth - frame.requestedWidth) <= 1, "\(image)")
                let height = Double(heights[expected] ?? 0) * Double(frame.requestedWidth) / Double(expected)
                #expect(abs(Double(image.naturalHeight) - height) <= 1, "\(image)")
            }
        }
        // The runs cover different choices, not one width for all.
        let chosen = Set(try frames().flatMap { $0.frame.entries.map(\.currentSrc) })
        #expect(chosen.count == 3)
    }

    @Test func everyVariantDecodesInTheBrowserAtItsManifestSize() throws {
        let setup = try Self.setup.get()
        let listed = setup.manifest.images.keys.sorted().flatMap { setup.manifest.images[$0]?.variants ?? [] }  // the page's order
        for report in setup.reports {
            #expect(report.variants.count == listed.count)
            var averages: [Int: [[Int]]] = [:]
            for (variant, seen) in zip(listed, report.variants) {
                #expect(seen.path == variant.path)
                #expect(seen.naturalWidth == variant.width && seen.naturalHeight == variant.height, "\(seen)")
                let average = try #require(seen.average, "\(seen.path): \(seen.problem)")
                #expect(average.count == 4 && average[3] == 255, "\(seen.path): \(average)")
                averages[variant.width, default: []].append(average)
            }
            // Decoded for real: AVIF, WebP and JPEG of one width average to nearly the same colour, not black.
            for (width, colours) in averages {
                let reference = try #require(colours.first)
                #expect(reference.prefix(3).reduce(0, +) > 60, "\(width): \(reference)")
                for colour in colours { #expect(zip(colour.prefix(3), reference.prefix(3)).allSatisfy { abs($0 - $1) <= 12 }, "\(width): \(colours)") }
            }
        }
    }

    @Test func hostileCaptionsStayText() throws {
        let expectedAlts = ["\(Self.folder)/photo 1.heic": Self.hostileAlt, "other.heic": Self.otherAlt, "based.heic": ""]
        for (_, frame) in try frames() {
            #expect(frame.ran.isEmpty, "a caption ran: \(frame.ran)")
            #expect(frame.others.isEmpty, "elements from a caption: \(frame.others)")
            #expect(frame.scripts == 1)
            #expect(frame.images == 3)
            for image in frame.entries { #expect(image.alt == expectedAlts[image.source], "\(image.source): \(image.alt)") }
        }
    }
}
