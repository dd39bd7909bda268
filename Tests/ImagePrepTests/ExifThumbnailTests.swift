import Foundation
import Testing
@testable import ImagePrep

/// The EXIF thumbnail shows the same way as the picture: when imgprep turns the pixels upright and sets
/// Orientation to 1, it turns IFD1's thumbnail too, as exiftool and ImageMagick read it back.
@Suite struct ExifThumbnailTests {
    /// A 320x180 JPEG, red left and blue right, with Orientation 6 (rotate 90 clockwise) and a 160x45
    /// thumbnail drawn the same way, as a camera held upright stores them. Returns its path and the thumbnail's.
    private func sidewaysPhoto(in directory: URL, orientation: Int = 6) throws -> (photo: String, thumbnail: String) {
        let photo = directory.appendingPathComponent("photo.jpg").path
        let thumbnail = directory.appendingPathComponent("thumb.jpg").path
        for (path, size) in [(photo, "160x180"), (thumbnail, "80x45")] {
            let made = try TestSupport.run("convert", ["-size", size, "xc:red", "-size", size, "xc:blue", "+append", "-quality", "90", path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let tagged = try TestSupport.run("exiftool", ["-q", "-overwrite_original", "-ThumbnailImage<=\(thumbnail)",
                                                      "-Orientation#=\(orientation)", photo])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        return (photo, thumbnail)
    }

    private func thumbnail(of path: String, savedAs output: String) throws -> [UInt8] {
        let extracted = try TestSupport.capture("exiftool", ["-b", "-ThumbnailImage", path])
        try Data(extracted.output).write(to: URL(fileURLWithPath: output))
        return extracted.output
    }

    @Test(arguments: ["jpeg", "webp", "png"])
    func aTurnedPictureGetsATurnedThumbnail(_ format: String) throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (photo, original) = try sidewaysPhoto(in: directory)
        let output = directory.appendingPathComponent("out.\(format == "jpeg" ? "jpg" : format)").path
        let run = try TestSupport.imgprep(["convert", photo, "--to", format, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("thumbnail"), "\(run.stderr)")

        let tags = try TestSupport.exiftool(output)
        #expect(tags["IFD0:Orientation"] as? Int == 1)
        let turned = directory.appendingPathComponent("turned-thumb.jpg").path
        #expect(try !thumbnail(of: output, savedAs: turned).isEmpty)
        let size = try TestSupport.run("identify", ["-format", "%wx%h", turned]).stdout
        #expect(size == "45x160")
        // Against ImageMagick's own 90° turn of the thumbnail that went in (red on top, blue below).
        let reference = directory.appendingPathComponent("reference.png").path
        #expect(try TestSupport.run("convert", [original, "-rotate", "90", reference]).status == 0)
        let compared = try TestSupport.run("compare", ["-metric", "PSNR", turned, reference, "null:"])
        let psnr = Double(compared.stderr.split(separator: " ").first ?? "") ?? 0
        #expect(psnr > 30, "PSNR \(compared.stderr)")
    }

    @Test func anUprightPictureKeepsItsThumbnailByteForByte() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (photo, _) = try sidewaysPhoto(in: directory, orientation: 1)
        let output = directory.appendingPathComponent("out.jpg").path
        #expect(try TestSupport.imgprep(["convert", photo, "--to", "jpeg", "-o", output]).status == 0)
        let before = try thumbnail(of: photo, savedAs: directory.appendingPathComponent("a.jpg").path)
        let after = try thumbnail(of: output, savedAs: directory.appendingPathComponent("b.jpg").path)
        #expect(!before.isEmpty && before == after)
    }

    /// A thumbnail that does not decode cannot be turned: dropped, saying so; the picture converts.
    @Test func aBrokenThumbnailIsDroppedWithAWarning() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (photo, thumbnailPath) = try sidewaysPhoto(in: directory)
        var bytes = try TestSupport.bytes(photo)
        let stored = try TestSupport.bytes(thumbnailPath)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: stored) })
        bytes.replaceSubrange((start + 2)..<(start + stored.count), with: repeatElement(0x55, count: stored.count - 2))
        try Data(bytes).write(to: URL(fileURLWithPath: photo))

        let output = directory.appendingPathComponent("out.jpg").path
        let run = try TestSupport.imgprep(["convert", photo, "--to", "jpeg", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("dropped the EXIF thumbnail: it could not be turned upright"), "\(run.stderr)")
        let tags = try TestSupport.exiftool(output)
        #expect(tags["IFD1:ThumbnailLength"] == nil && tags["IFD1:ThumbnailOffset"] == nil)
        #expect(tags["IFD0:Orientation"] as? Int == 1)
        #expect(tags["File:ImageWidth"] as? Int == 180)
    }

    /// The new thumbnail goes after everything else, and the old one's bytes go when they were last.
    @Test func replacingPointsIFD1AtTheNewBytes() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (photo, _) = try sidewaysPhoto(in: directory)
        let exif = try #require(JPEGMarkers.metadata(in: try TestSupport.bytes(photo)).0.exif)
        let old = try #require(Exif.thumbnailJPEG(in: exif))
        let new = [UInt8](repeating: 0xAB, count: 100)
        let patched = try Exif.patch(exif, options: ExifPatchOptions(thumbnail: .replace(new))).tiff
        #expect(Exif.thumbnailJPEG(in: patched) == new)
        #expect(patched.count <= exif.count - old.count + new.count + 1)
        let dropped = try Exif.patch(exif, options: ExifPatchOptions(thumbnail: .drop)).tiff
        #expect(!Exif.hasThumbnail(dropped) && Exif.thumbnailJPEG(in: dropped) == nil)
    }
}
