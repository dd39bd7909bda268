import Foundation
import Testing
@testable import ImagePrep

/// `--crop attention` (and entropy) against libvips' own: `vipsthumbnail IN -s WxH -m attention` on corpus photos.
/// vips' crop is found in its uncropped thumbnail at the same scale (the offset where the pixels match);
/// ours is SmartCrop.window on vips' 256 px reduction of the same photo (upright, sRGB), so only the
/// crop choice is compared.
@Suite(.enabled(if: TestSupport.corpus != nil && TestSupport.toolExists("vipsthumbnail"),
                "no shared corpus or no vipsthumbnail: attention crops against libvips skipped"))
struct SmartCropVipsTests {
    static let photos = ["jpeg/libvips__sample.jpg", "jpeg/ljt__testorig.jpg", "jpeg/nuke__image-p3.jpg",
                         "jpeg/pillow__xmp_test.jpg", "jpeg/recurser__Landscape_1.jpg", "jpeg/immich__portrait-orientation-6.jpg",
                         "jpeg/nuke__right-orientation.jpeg", "jpeg/immich__craft-beer.jpg", "heic/libheif__example.heic",
                         "heic/sdwebimage__TestImage.heic", "heic/pillow_heif__pug.heic", "avif/libavif__kodim03_yuv420_8bpc.avif",
                         "avif/libheif__example.avif", "avif/libavif__paris_icc_exif_xmp.avif"]
    /// A square, a social card's 1200:630 and a 9:16 story, small so vips is quick.
    static let boxes = [(100, 100), (120, 63), (63, 112)]

    struct Comparison {
        var name: String
        var box: (Int, Int)
        /// The free axis' length in the thumbnail and each window's start on it.
        var length: Int, window: Int, vips: Int, ours: Int
        var matchError: Double

        var range: Int { length - window }
        var iou: Double { Self.iou(window, abs(vips - ours)) }
        var centreIoU: Double { Self.iou(window, abs(vips - range / 2)) }

        /// Of two windows `length` long, `apart` pixels apart on one axis.
        static func iou(_ length: Int, _ apart: Int) -> Double { Double(max(length - apart, 0)) / Double(length + apart) }
    }

    /// The start (along the free axis) where `crop` matches `whole` best, and its mean absolute difference.
    static func locate(_ crop: PixelBuffer, in whole: PixelBuffer, horizontal: Bool) -> (start: Int, error: Double) {
        let range = horizontal ? whole.width - crop.width : whole.height - crop.height
        var best = (start: 0, error: Double.infinity)
        for start in 0...max(range, 0) {
            var sum = 0
            for y in 0..<crop.height {
                for x in 0..<crop.width {
                    let (wx, wy) = horizontal ? (x + start, y) : (x, y + start)
                    for k in 0..<3 {
                        sum += abs(Int(crop.pixels[(y * crop.width + x) * crop.channels + k]) - Int(whole.pixels[(wy * whole.width + wx) * whole.channels + k]))
                    }
                }
            }
            let error = Double(sum) / Double(crop.width * crop.height * 3)
            if error < best.error { best = (start, error) }
        }
        return best
    }

    static func vipsthumbnail(_ input: String, _ size: String, _ extra: [String], _ output: URL) throws -> PixelBuffer {
        let run = try TestSupport.run("vipsthumbnail", [input, "-s", size] + extra + ["-o", output.path])
        try #require(run.status == 0, "vipsthumbnail \(input): \(run.stderr)")
        return try TestSupport.decode(output.path)
    }

    /// `ownReduction`: the analysis picture is made by our JPEG decoder and resize instead of vips (for
    /// upright sRGB JPEGs only: orientation and colour are the pipeline's, not tested here).
    static func compare(_ photo: String, box: (Int, Int), in directory: URL, ownReduction: Bool = false,
                        strategy: CropStrategy = .attention) throws -> Comparison? {
        guard let corpus = TestSupport.corpus else { return nil }
        let input = corpus.appendingPathComponent(photo).path
        let (bw, bh) = box
        var analysis = try vipsthumbnail(input, "256", [], directory.appendingPathComponent("analysis.png"))
        if ownReduction {
            let full = try TestSupport.decode(input)
            let size = fittedSize(width: full.width, height: full.height, maxDimension: 256)
            analysis = resized(full, width: size.width, height: size.height)
        }
        // The free axis: the photo is wider than the box (crop across) or taller (crop down).
        let horizontal = analysis.width * bh > analysis.height * bw
        let whole = try vipsthumbnail(input, horizontal ? "100000x\(bh)" : "\(bw)x100000", [], directory.appendingPathComponent("whole.png"))
        let crop = try vipsthumbnail(input, "\(bw)x\(bh)", ["-m", strategy == .entropy ? "entropy" : "attention"], directory.appendingPathComponent("crop.png"))
        try #require((crop.width, crop.height) == (bw, bh))
        let length = horizontal ? whole.width : whole.height
        guard length - (horizontal ? bw : bh) >= 4 else { return nil }   // nothing to choose
        let found = locate(crop, in: whole, horizontal: horizontal)
        let ours = SmartCrop.window(analysis: analysis, sourceWidth: whole.width, sourceHeight: whole.height,
                                    aspectWidth: bw, aspectHeight: bh, strategy: strategy)
        try #require((ours.width, ours.height) == (bw, bh), "\(photo): our window \(ours) for \(bw)x\(bh) in \(whole.width)x\(whole.height)")
        return Comparison(name: photo, box: box, length: length, window: horizontal ? bw : bh, vips: found.start,
                          ours: horizontal ? ours.x : ours.y, matchError: found.error)
    }

    /// Upright (Orientation 1 or none) sRGB JPEGs, which our decoder alone reduces as the pipeline would.
    static let uprightSRGB = ["jpeg/ljt__testorig.jpg", "jpeg/recurser__Landscape_1.jpg", "jpeg/recurser__Landscape_0.jpg"]

    @Test("Our attention windows overlap vipsthumbnail -m attention's on corpus photos (vips' 256 px reduction)")
    func attentionAgreesWithVips() throws {
        try Self.check(Self.photos, ownReduction: false, atLeast: 20)
    }

    @Test("The same with our own decode and 256 px reduction of upright sRGB JPEGs")
    func attentionAgreesWithVipsOnOurReduction() throws {
        try Self.check(Self.uprightSRGB, ownReduction: true, atLeast: 8)
    }

    /// vips slices the box-sized thumbnail, we the 256 px reduction: the greedy slicing can part ways on
    /// a photo whose two ends are about as busy, so no floor on the worst case here.
    @Test("Entropy: ours (on the 256 px reduction) against vipsthumbnail -m entropy (on the box-sized thumbnail)")
    func entropyAgainstVips() throws {
        try Self.check(Self.photos, ownReduction: false, atLeast: 20, strategy: .entropy, worst: 0, closeShare: 0.7)
    }

    /// Expects: the median IoU with vips >= 0.9, the mean >= 0.8 and above the centre crop's, the worst
    /// >= `worst`, and at least `closeShare` of the windows within 1/32 of the axis of vips'.
    static func check(_ photos: [String], ownReduction: Bool, atLeast: Int, strategy: CropStrategy = .attention,
                      worst: Double = 0.4, closeShare: Double = 0.8) throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var results: [Comparison] = []
        for photo in photos {
            guard let corpus = TestSupport.corpus, FileManager.default.fileExists(atPath: corpus.appendingPathComponent(photo).path) else { continue }
            for box in Self.boxes {
                if let comparison = try Self.compare(photo, box: box, in: directory, ownReduction: ownReduction, strategy: strategy) { results.append(comparison) }
            }
        }
        try #require(results.count >= atLeast, "only \(results.count) comparisons")
        var table = ["photo                                      box      axis  vips  ours  IoU   centre-IoU  match"]
        for r in results {
            table.append(r.name.padding(toLength: 43, withPad: " ", startingAt: 0) + String(format: "%3dx%-4d %4d  %4d  %4d  %.2f  %.2f        %.1f",
                                r.box.0, r.box.1, r.length, r.vips, r.ours, r.iou, r.centreIoU, r.matchError))
        }
        let ious = results.map(\.iou).sorted()
        let median = ious[ious.count / 2], mean = ious.reduce(0, +) / Double(ious.count)
        let centreMean = results.map(\.centreIoU).reduce(0, +) / Double(results.count)
        let close = results.filter { abs($0.vips - $0.ours) <= max(2, $0.length / 32) }.count
        table.append(String(format: "IoU with vips: median %.2f, mean %.2f, min %.2f; within 1/32 of the axis: %d of %d; vips vs the centre: mean IoU %.2f",
                            median, mean, ious[0], close, results.count, centreMean))
        let report = table.joined(separator: "\n")
        print(report)
        // Each vips crop was found in its own thumbnail (pixels match, up to PNG rounding).
        #expect(results.allSatisfy { $0.matchError < 3 }, "\(report)")
        #expect(median >= 0.9, "\(report)")
        #expect(mean >= 0.8 && mean > centreMean, "\(report)")
        #expect(ious[0] >= worst, "\(report)")
        #expect(Double(close) >= closeShare * Double(results.count), "\(report)")
    }
}
