import Foundation
import Testing
@testable import ImagePrep

/// The iPhone 16 gain-map photo libheif 1.15 rejects on its own: imgprep converts, compresses and
/// describes it like any other iPhone photo (see HeifReferenceRepair).
@Suite(.enabled(if: TestSupport.corpus != nil, "no shared corpus: gain-map tests skipped"))
struct GainMapTests {
    static let photo = TestSupport.corpus?.appendingPathComponent("heic/libvips__apple-heic-gainmap.heic").path ?? ""

    @Test func convertsUprightWithExifAndIcc() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["convert", Self.photo, "--to", "jpeg", "-o", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let output = dir.appendingPathComponent("libvips__apple-heic-gainmap.jpg").path
        let tags = try TestSupport.exiftool(output)
        // Stored 5712x4284 with irot 270: upright portrait, Orientation 1 (EXIF says 6: not applied twice).
        #expect(tags["File:ImageWidth"] as? Int == 4284 && tags["File:ImageHeight"] as? Int == 5712)
        #expect(tags["IFD0:Orientation"] as? Int == 1)
        #expect(tags["IFD0:Model"] as? String == "iPhone 16")
        #expect(tags["ExifIFD:DateTimeOriginal"] as? String == "2026:05:13 14:48:06")
        #expect((tags["GPS:GPSLatitude"] as? Double).map { abs($0 - 52.2485) < 0.001 } == true, "\(tags["GPS:GPSLatitude"] ?? "none")")
        #expect(tags["Apple:MakerNoteVersion"] != nil || tags.keys.contains { $0.hasPrefix("Apple:") }, "MakerNotes lost")
        // The file holds four profiles (gain map, mattes) and `exiftool -b` cannot pick one, so compare the
        // primary's (exiftool's un-numbered ICC groups): every header field and tag, ProfileID included.
        let source = try TestSupport.exiftool(Self.photo)
        func profileTags(_ all: [String: Any]) -> [String: String] {
            all.filter { $0.key.hasPrefix("ICC-header:") || $0.key.hasPrefix("ICC_Profile:") }.mapValues { "\($0)" }
        }
        #expect(profileTags(source)["ICC_Profile:ProfileDescription"] == "Display P3")
        #expect(profileTags(source) == profileTags(tags), "the primary's Display P3 profile changed")
    }

    @Test func compressesWithinBudget() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try TestSupport.imgprep(["compress", "--max-bytes", "1MB", Self.photo, "-o", dir.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((object["bytes"] as? Int ?? .max) <= 1_000_000)
        #expect(object["height"] as? Int ?? 0 > object["width"] as? Int ?? 0, "not upright: \(object)")
    }

    @Test func infoShowsTheGainMapAndReferences() throws {
        let run = try TestSupport.imgprep(["info", Self.photo])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("hdrgainmap"))
        #expect(run.stdout.contains("HDR gain map present"))
        #expect(run.stdout.contains("item references:"))
    }
}
