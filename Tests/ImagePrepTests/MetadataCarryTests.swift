import Foundation
import Testing
@testable import ImagePrep

/// Nothing is dropped silently: IPTC and JPEG comments travel byte for byte, location goes from every
/// place that holds it on request, and whatever an output format cannot hold is named in a warning.
/// Checked with exiftool on JPEGs it tagged itself.
@Suite(.serialized, .enabled(if: TestSupport.toolExists("exiftool"), "exiftool is not installed"))
struct MetadataCarryTests {
    static let locationTags = [
        "IPTC:City", "IPTC:Sub-location", "IPTC:Province-State", "IPTC:Country-PrimaryLocationName",
        "IPTC:Country-PrimaryLocationCode", "XMP-photoshop:City", "XMP-photoshop:State", "XMP-photoshop:Country",
        "XMP-iptcCore:Location", "XMP-iptcCore:CountryCode", "XMP-iptcExt:LocationShownCity",
        "XMP-iptcExt:LocationCreatedCity", "GPS:GPSLatitude", "GPS:GPSLongitude",
    ]

    /// The P3 fixture as a JPEG tagged by exiftool with IPTC (with its digest), a comment, and location in
    /// EXIF, XMP and IPTC; `orientation` set when given (320x240 4:2:0: every turn is lossless).
    static func taggedJPEG(in dir: URL, orientation: Int? = nil) throws -> String {
        let made = try TestSupport.imgprep(["convert", TestSupport.fixtures.appendingPathComponent("heic/gps-p3.heic").path,
                                            "-o", dir.path, "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        let path = dir.appendingPathComponent("gps-p3.jpg").path
        var tags = ["-IPTC:Keywords=alpha", "-IPTC:Keywords=beta", "-IPTC:By-line=Ann Author",
                    "-IPTC:CopyrightNotice=(c) 2026 Ann", "-IPTC:Caption-Abstract=A caption", "-IPTC:City=Tallinn",
                    "-IPTC:Sub-location=Old Town", "-IPTC:Province-State=Harju", "-IPTC:Country-PrimaryLocationName=Estonia",
                    "-IPTC:Country-PrimaryLocationCode=EST", "-XMP-photoshop:City=Tallinn", "-XMP-photoshop:State=Harju",
                    "-XMP-photoshop:Country=Estonia", "-XMP-iptcCore:Location=Old Town", "-XMP-iptcCore:CountryCode=EST",
                    "-XMP-iptcExt:LocationShownCity=Tallinn", "-XMP-iptcExt:LocationCreatedCity=Tallinn",
                    "-Comment=made by a test"]
        if let orientation { tags.append("-IFD0:Orientation#=\(orientation)") }
        let tagged = try TestSupport.run("exiftool", ["-q", "-overwrite_original"] + tags + [path])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let digest = try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-IPTCDigest=new", path])
        #expect(digest.status == 0, "\(digest.stderr)")
        return path
    }

    static func metadata(_ path: String) throws -> ImageMetadata {
        JPEGMarkers.metadata(in: try TestSupport.bytes(path)).0
    }

    /// Re-encoded (`-q 90`) and turned losslessly (Orientation 6, no quality asked): the APP13 resources
    /// and the comment come out byte for byte, and exiftool reads the same IPTC.
    @Test(arguments: [(nil, ["-q", "90"]), (6, [])] as [(Int?, [String])])
    func jpegKeepsIptcAndCommentsByteForByte(orientation: Int?, options: [String]) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.taggedJPEG(in: dir, orientation: orientation)
        let run = try TestSupport.imgprep(["convert", source, "-o", dir.appendingPathComponent("out").path, "--json"] + options)
        #expect(run.status == 0, "\(run.stderr)")
        let output = dir.appendingPathComponent("out/gps-p3.jpg").path
        let (before, after) = (try Self.metadata(source), try Self.metadata(output))
        #expect(after.iptc != nil && after.iptc == before.iptc, "APP13 resources changed")
        #expect(after.comments == before.comments && after.comments == [Array("made by a test".utf8)])
        let tags = try TestSupport.exiftool(output)
        #expect(tags["IPTC:Keywords"] as? [String] == ["alpha", "beta"], "\(tags)")
        #expect(tags["IPTC:By-line"] as? String == "Ann Author")
        #expect(tags["IPTC:City"] as? String == "Tallinn")
        #expect(tags["File:Comment"] as? String == "made by a test")
        #expect(tags["IFD0:Orientation"] as? Int == 1)
        #expect(run.stdout.contains("\"lossless\":true") == (orientation != nil), "\(run.stdout)")
    }

    /// `--strip-location` and its old name `--strip-gps` remove the place from EXIF, XMP and IPTC, on the
    /// re-encode and on the lossless path, and keep everything else; the IPTC digest stays true.
    @Test(arguments: ["--strip-location", "--strip-gps"], [false, true])
    func stripLocationRemovesEveryPlaceAndKeepsTheRest(option: String, lossless: Bool) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.taggedJPEG(in: dir, orientation: lossless ? 8 : nil)
        let before = try TestSupport.exiftool(source)
        for tag in Self.locationTags { #expect(before[tag] != nil, "the input lacks \(tag)") }
        let run = try TestSupport.imgprep(["convert", source, option, "-o", dir.appendingPathComponent("out").path, "--json"]
                                          + (lossless ? [] : ["-q", "88"]))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"lossless\":true") == lossless, "\(run.stdout)")
        let output = dir.appendingPathComponent("out/gps-p3.jpg").path
        let tags = try TestSupport.exiftool(output)
        for tag in Self.locationTags { #expect(tags[tag] == nil, "\(option): \(tag) survived: \(tags[tag] ?? "")") }
        #expect(!tags.keys.contains { $0.hasPrefix("GPS:") }, "\(tags.keys.filter { $0.hasPrefix("GPS:") })")
        #expect(tags["IPTC:Keywords"] as? [String] == ["alpha", "beta"])
        for kept in ["IPTC:By-line", "IPTC:CopyrightNotice", "IPTC:Caption-Abstract", "XMP-dc:Title", "IFD0:Make", "File:Comment"] {
            #expect(tags[kept] != nil && "\(tags[kept] ?? "")" == "\(before[kept] ?? "")", "\(kept): \(tags[kept] ?? "nil")")
        }
        let digest = try #require(tags["Photoshop:IPTCDigest"] as? String)
        #expect(digest == tags["File:CurrentIPTCDigest"] as? String, "the IPTC digest no longer matches the record")
    }

    @Test func stripMetadataDropsIptcAndCommentsButKeepsTheProfile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.taggedJPEG(in: dir, orientation: 6)
        for options in [["--strip-metadata"], ["--strip-metadata", "-q", "80"]] {
            let out = dir.appendingPathComponent("out\(options.count)")
            let run = try TestSupport.imgprep(["convert", source, "-o", out.path] + options)
            #expect(run.status == 0, "\(run.stderr)")
            let tags = try TestSupport.exiftool(out.appendingPathComponent("gps-p3.jpg").path)
            #expect(!tags.keys.contains { $0.hasPrefix("IPTC:") || $0.hasPrefix("Photoshop:") || $0.hasPrefix("XMP") || $0.hasPrefix("GPS:") },
                    "\(options): \(tags.keys.sorted())")
            #expect(tags["File:Comment"] == nil && tags["IFD0:Make"] == nil)
            #expect(tags["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        }
    }

    /// PNG has a standard place for comments (a `Comment` text chunk) and none for IPTC: the comment goes
    /// there, and the IPTC is dropped with a warning that names it.
    @Test func pngCarriesCommentsAndNamesTheIptcItDrops() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.taggedJPEG(in: dir)
        let run = try TestSupport.imgprep(["convert", "-v", source, "--to", "png", "-o", dir.appendingPathComponent("out").path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("gps-p3.jpg: warning: dropped the IPTC data (Photoshop APP13 resources): PNG has no place for it"), "\(run.stderr)")
        let tags = try TestSupport.exiftool(dir.appendingPathComponent("out/gps-p3.png").path)
        #expect(tags["PNG:Comment"] as? String == "made by a test", "\(tags)")
        #expect(tags["XMP-photoshop:City"] as? String == "Tallinn", "XMP still carries what it held")
        #expect(!tags.keys.contains { $0.hasPrefix("IPTC:") })

        // Nothing to warn about when IPTC is stripped anyway.
        let stripped = try TestSupport.imgprep(["convert", source, "--to", "png", "--strip-metadata", "-o", dir.appendingPathComponent("out2").path])
        #expect(stripped.status == 0 && !stripped.stderr.contains("warning"), "\(stripped.stderr)")
    }

    /// A HEIF `iptc` item (bare IIM datasets) lands in the JPEG's APP13, and loses its place on request.
    @Test(.enabled(if: TestSupport.corpus != nil, "no shared corpus (set IMGPREP_CORPUS)"))
    func heifIptcItemReachesTheJPEG() throws {
        let source = try #require(TestSupport.corpus).appendingPathComponent("heic/pillow_heif__L_exif_xmp_iptc.heic").path
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let kept = try TestSupport.imgprep(["convert", source, "-o", dir.appendingPathComponent("kept").path])
        #expect(kept.status == 0, "\(kept.stderr)")
        let tags = try TestSupport.exiftool(dir.appendingPathComponent("kept/pillow_heif__L_exif_xmp_iptc.jpg").path)
        #expect(tags["IPTC:City"] as? String == "Budapest", "\(tags.filter { $0.key.hasPrefix("IPTC") })")
        #expect(tags["IPTC:Country-PrimaryLocationName"] as? String == "Hungary")
        let keywords = tags["IPTC:Keywords"] as? [Any] ?? []
        #expect(keywords.map { "\($0)" }.contains("holiday"), "\(keywords)")

        let stripped = try TestSupport.imgprep(["convert", source, "--strip-location", "-o", dir.appendingPathComponent("stripped").path])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        let after = try TestSupport.exiftool(dir.appendingPathComponent("stripped/pillow_heif__L_exif_xmp_iptc.jpg").path)
        #expect(after["IPTC:City"] == nil && after["IPTC:Country-PrimaryLocationName"] == nil, "\(after.filter { $0.key.hasPrefix("IPTC") })")
        #expect((after["IPTC:Keywords"] as? [Any])?.count == keywords.count)
    }
}
