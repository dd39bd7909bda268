import Foundation
import Testing
@testable import ImagePrep

/// Which animations get frames tried lossless as well as lossy: drawn ones (where libwebp writes
/// lossless frames) yes, photos quantised to a GIF palette (where it never does) no.
@Suite struct MixedFramesTrialTests {
    static func firstFrame(_ path: String) throws -> PixelBuffer {
        let options = DecodeOptions(maxPixels: 1 << 24, keepsAnimation: true)
        guard case .animation(let animation) = try GIFDecoder().decode(TestSupport.bytes(path), options: options).content else {
            throw ImagePrepError(.corrupt, "\(path) is not an animation")
        }
        return animation.frames[0].canvas
    }

    /// gif2webp -mixed writes lossless frames for all of these but stripes, where it is a near thing.
    @Test(arguments: ["disposal", "no-loop", "loop-3", "orbit", "wave", "stripes"])
    func drawnAnimationsKeepMixedFrames(_ name: String) throws {
        let frame = try Self.firstFrame(TestSupport.fixtures.appendingPathComponent("gif/\(name).gif").path)
        #expect(try MixedFramesTrial.worthwhile(frame, quality: 80))
    }

    @Test func coloursAreCountedUpToTheLimit() {
        // Four pixels, three values (alpha counts: the last differs from the first only by it).
        let rgba = PixelBuffer(width: 4, height: 1, channels: 4, pixels: [1, 2, 3, 255, 1, 2, 3, 255, 9, 9, 9, 255, 1, 2, 3, 0])
        #expect(MixedFramesTrial.colours(rgba, upTo: 194) == 3)
        #expect(MixedFramesTrial.colours(rgba, upTo: 2) == 2)
        let rgb = PixelBuffer(width: 2, height: 1, channels: 3, pixels: [1, 2, 3, 1, 2, 4])
        #expect(MixedFramesTrial.colours(rgb, upTo: 194) == 2)
    }

    /// Photo pans at 256 and at 64 colours: lossy frames only, the frames gif2webp -lossy writes at the
    /// same method. At 64 colours (under libwebp's 194, so every frame would be tried lossless) the
    /// trial turns mixed frames off; at 256 the first frame is not tried lossless, and mixing stays.
    @Test(.enabled(if: TestSupport.corpus != nil && TestSupport.toolExists("convert") && TestSupport.toolExists("gif2webp"),
                   "needs the shared corpus, ImageMagick and gif2webp"),
          arguments: [256, 64])
    func photoPansAreLossyOnly(_ colours: Int) throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try #require(TestSupport.corpus).appendingPathComponent("jpeg/immich__craft-beer.jpg").path
        try #require(FileManager.default.fileExists(atPath: source), "corpus photo \(source)")
        let base = dir.appendingPathComponent("base.png").path, gif = dir.appendingPathComponent("pan.gif").path
        let crops = (0..<4).map { "\\( \(base) -crop 160x120+\($0 * 8)+\($0 * 5) +repage \\)" }.joined(separator: " ")
        let made = try TestSupport.run("/bin/sh", ["-c", "convert \(source) -resize 240x180^ -gravity center -extent 240x180 \(base) && "
            + "convert -delay 8 -loop 0 \(crops) -colors \(colours) -layers Optimize \(gif)"])
        try #require(made.status == 0, "\(made.stderr)")
        let first = try Self.firstFrame(gif)
        let few = MixedFramesTrial.colours(first, upTo: MixedFramesTrial.losslessColours) < MixedFramesTrial.losslessColours
        if colours == 64 { try #require(few, "a 64-colour pan's first frame has fewer than 194 colours") }
        #expect(try MixedFramesTrial.worthwhile(first, quality: 80) == !few)

        func frames(_ path: String) throws -> [String] {
            let run = try TestSupport.run("webpmux", ["-info", path])
            #expect(run.status == 0, "webpmux \(path): \(run.stderr)")
            return run.stdout.components(separatedBy: "\n").filter { $0.range(of: #"^ *[0-9]+:"#, options: .regularExpression) != nil }
        }
        let converted = try TestSupport.imgprep(["convert", gif, "--to", "webp", "--quality", "80", "-o", dir.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        let theirs = dir.appendingPathComponent("gif2webp.webp").path
        let reference = try TestSupport.run("gif2webp", ["-quiet", "-lossy", "-q", "80", "-m", "3", "-kmax", "0", gif, "-o", theirs])
        #expect(reference.status == 0, "\(reference.stderr)")
        let ours = try frames(dir.appendingPathComponent("pan.webp").path)
        #expect(!ours.isEmpty && ours.allSatisfy { $0.contains("lossy") })
        #expect(ours == (try frames(theirs)))
    }
}
