import Foundation
import Testing
@testable import ImagePrep

/// Hostile GIFs: refused from their records before anything is allocated for pixels, or decoded with
/// one clear line about what was wrong; a batch of them goes on, one line per file.
@Suite struct HostileGIFTests {
    static let options = DecodeOptions(maxPixels: 1_000_000, keepsAnimation: true)

    static func failure(_ bytes: [UInt8], options: DecodeOptions = options) -> ImagePrepError? {
        do {
            _ = try GIFDecoder().decode(bytes, options: options)
            return nil
        } catch {
            return error as? ImagePrepError
        }
    }

    @Test func hugeLogicalScreenWithATinyFrameIsRefusedFromItsHeader() throws {
        let bytes = HostileGIF.file(width: 65535, height: 65535, frames: [HostileGIF.Frame(width: 1, height: 1, pixels: [1])])
        let header = try #require(HeaderProbe.header(of: bytes, format: .gif))
        #expect(header.pixelCount == 65535 * 65535)
        let error = try #require(Self.failure(bytes))
        #expect(error.kind == .tooLarge)
        #expect(error.description == "65535x65535 is over the --max-pixels limit of 1000000 pixels", "\(error)")
    }

    @Test func manyTinyFramesAreRefusedFromTheirRecords() throws {
        let frame = HostileGIF.Frame(width: 1, height: 1, pixels: [1])
        // Every frame's canvas counts: 5,000 frames of a 16x16 screen are 1,280,000 pixels.
        let many = HostileGIF.file(width: 16, height: 16, frames: Array(repeating: frame, count: 5_000))
        let error = try #require(Self.failure(many))
        #expect(error.kind == .tooLarge && error.description.contains("16x16 x 5000 frames is over the --max-pixels limit"), "\(error)")
        // 100,000 frames of one pixel: under any pixel cap, over the frame limit.
        let countless = HostileGIF.file(width: 1, height: 1, frames: Array(repeating: frame, count: 100_000))
        let refused = try #require(Self.failure(countless, options: DecodeOptions(maxPixels: .max, keepsAnimation: true)))
        #expect(refused.kind == .tooLarge && refused.description == "the GIF has more than 10000 frames", "\(refused)")
        #expect(try #require(HeaderProbe.header(of: countless, format: .gif)).frames > Animation.maxFrames,
                "the batch's memory estimate sees past the limit too")
    }

    @Test func framePixelsBeyondTheScreenCountTowardsTheCap() throws {
        // A 10x10 screen whose one frame claims 2000x1000: the LZW work is the frame's, not the screen's.
        let bytes = HostileGIF.file(width: 10, height: 10, frames: [HostileGIF.Frame(width: 2000, height: 1000, pixels: [1])])
        let error = try #require(Self.failure(bytes))
        #expect(error.kind == .tooLarge && error.description.contains("frames hold 2000000 pixels"), "\(error)")
    }

    @Test func lzwDataShorterThanTheFrameIsCorrupt() throws {
        let bytes = HostileGIF.file(width: 8, height: 8, frames: [HostileGIF.Frame(width: 8, height: 8, pixels: Array(repeating: 1, count: 20))])
        let error = try #require(Self.failure(bytes))
        #expect(error.kind == .corrupt && error.description.hasPrefix("giflib: the LZW data of a frame is damaged or ends early"), "\(error)")
    }

    @Test func lzwDataLongerThanTheFrameIsIgnoredPastTheFrame() throws {
        let bytes = HostileGIF.file(width: 2, height: 2, frames: [HostileGIF.Frame(width: 2, height: 2, pixels: [1, 2, 3, 1, 2, 3, 3, 3])])
        let decoded = try GIFDecoder().decode(bytes, options: Self.options)
        #expect(decoded.pixels.pixels == [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 0, 0])
    }

    @Test func framesReachingOutsideTheScreenAreClippedWithOneWarning() throws {
        let bytes = HostileGIF.file(width: 4, height: 4, frames: [
            HostileGIF.Frame(width: 4, height: 4, pixels: Array(repeating: 3, count: 16)),
            HostileGIF.Frame(left: 2, top: 2, width: 4, height: 4, pixels: Array(repeating: 1, count: 16)),
            HostileGIF.Frame(left: 300, top: 300, width: 2, height: 2, pixels: [2, 2, 2, 2]),
        ])
        let decoded = try GIFDecoder().decode(bytes, options: Self.options)
        #expect(decoded.warnings == ["2 GIF frames reach outside the 4x4 logical screen; clipped to it"])
        guard case .animation(let animation) = decoded.content else { Issue.record("animated"); return }
        let second = animation.frames[1].canvas
        #expect(Array(second.pixels[0..<4]) == [0, 0, 255, 255] && Array(second.pixels[(3 * 4 + 3) * 4..<(3 * 4 + 3) * 4 + 4]) == [255, 0, 0, 255])
        #expect(animation.frames[2].canvas.pixels == second.pixels, "a frame wholly outside draws nothing")
    }

    @Test func frameWithoutAnyPaletteIsCorrupt() throws {
        let bytes = HostileGIF.file(width: 2, height: 1, globalPalette: nil, frames: [HostileGIF.Frame(width: 2, height: 1, pixels: [0, 1])])
        let error = try #require(Self.failure(bytes))
        #expect(error.kind == .corrupt && error.description == "GIF frame 1 has no colour table (neither its own nor a global one)", "\(error)")
        // With a local palette it is fine.
        let local = HostileGIF.file(width: 2, height: 1, globalPalette: nil, frames: [
            HostileGIF.Frame(width: 2, height: 1, pixels: [0, 1], palette: [[9, 9, 9], [7, 7, 7]])])
        #expect(try GIFDecoder().decode(local, options: Self.options).pixels.pixels == [9, 9, 9, 7, 7, 7])
    }

    @Test func truncatedRecordsKeepTheWholeFramesBeforeThem() throws {
        let whole = HostileGIF.file(width: 2, height: 1, frames: [HostileGIF.Frame(width: 2, height: 1, pixels: [1, 2]),
                                                                  HostileGIF.Frame(width: 2, height: 1, pixels: [3, 3])])
        let cut = Array(whole.dropLast(4))   // the second frame's data loses its end
        let decoded = try GIFDecoder().decode(cut, options: Self.options)
        #expect(decoded.pixels.pixels == [255, 0, 0, 0, 255, 0])
        #expect(decoded.warnings == ["the GIF's records are damaged or cut short after frame 1; the frames before were read"])
        #expect(Self.failure(Array(whole.prefix(6 + 7 + 12)))?.description == "the GIF holds no whole frame")
        #expect(Self.failure(Array(whole.prefix(12)))?.description == "the GIF's screen descriptor is cut short")
    }

    @Test func aBatchOfHostileGIFsGivesOneLineEachAndGoesOn() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files: [String: [UInt8]] = [
            "screen.gif": HostileGIF.file(width: 65535, height: 65535, frames: [HostileGIF.Frame(width: 1, height: 1, pixels: [1])]),
            "short.gif": HostileGIF.file(width: 8, height: 8, frames: [HostileGIF.Frame(width: 8, height: 8, pixels: [1, 1])]),
            "nopalette.gif": HostileGIF.file(width: 2, height: 1, globalPalette: nil, frames: [HostileGIF.Frame(width: 2, height: 1, pixels: [0, 1])]),
            "good.gif": HostileGIF.file(width: 2, height: 2, frames: [HostileGIF.Frame(width: 2, height: 2, pixels: [1, 2, 3, 1])]),
        ]
        for (name, bytes) in files { try Data(bytes).write(to: dir.appendingPathComponent(name)) }
        let run = try TestSupport.imgprep(["convert", "--to", "webp"] + files.keys.sorted().map { dir.appendingPathComponent($0).path }
                                          + ["-o", dir.appendingPathComponent("out").path])
        #expect(run.status != 0)
        for name in ["screen.gif", "short.gif", "nopalette.gif"] {
            #expect(run.stderr.components(separatedBy: "\n").filter { $0.contains(name) }.count == 1, "\(name): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("out").path) == ["good.webp"])
    }
}
