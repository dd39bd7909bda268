import Foundation
import Testing
@testable import ImagePrep

/// What `make demo` promises: its phone-sized HEIC (stored sideways, turned by `irot`, EXIF with GPS;
/// scripts/make-demo-fixture.sh) becomes an upright JPEG of at most 2048 pixels with the GPS kept.
@Suite struct DemoTests {
    static let photo = TestSupport.fixtures.appendingPathComponent("demo/phone-photo.heic").path

    @Test func theDemoWritesAnUpright2048PixelJPEGWithGPS() throws {
        let out = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        // The Makefile's demo command, as written there.
        let run = try TestSupport.imgprep(["convert", Self.photo, "--max-dimension", "2048", "--to", "jpeg", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let output = out.appendingPathComponent("phone-photo.jpg").path
        let source = try TestSupport.exiftool(Self.photo), written = try TestSupport.exiftool(output)
        #expect(source["File:ImageWidth"] as? Int == 3024 && source["File:ImageHeight"] as? Int == 4032, "the fixture is stored sideways")
        #expect(written["File:ImageWidth"] as? Int == 2048 && written["File:ImageHeight"] as? Int == 1536)
        #expect(written["IFD0:Orientation"] as? Int == 1)
        for tag in ["GPS:GPSLatitude", "GPS:GPSLongitude", "IFD0:Make", "ExifIFD:DateTimeOriginal"] {
            #expect(source[tag] != nil, "fixture lacks \(tag)")
            #expect("\(written[tag] ?? "missing")" == "\(source[tag] ?? "")", "\(tag)")
        }
        // Upright: the red block drawn in the viewed top-left corner is there, and only there.
        let image = try TestSupport.decode(output)
        func rgb(_ x: Int, _ y: Int) -> [Int] {
            let at = (y * image.width + x) * image.channels
            return image.pixels[at..<at + 3].map(Int.init)
        }
        for (x, y) in [(20, 20), (250, 180)] {
            let pixel = rgb(x, y)
            #expect(pixel[0] > 150 && pixel[1] < 90 && pixel[2] < 90, "(\(x), \(y)) is \(pixel), not the red block")
        }
        for (x, y) in [(2027, 20), (20, 1515), (2027, 1515)] {
            let pixel = rgb(x, y)
            #expect(!(pixel[0] > 150 && pixel[1] < 90 && pixel[2] < 90), "(\(x), \(y)) is red: the picture is turned")
        }
    }
}
