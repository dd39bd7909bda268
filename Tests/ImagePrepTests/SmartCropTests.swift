import Testing
@testable import ImagePrep

struct SmartCropTests {
    static func window(_ analysis: PixelBuffer, _ sw: Int, _ sh: Int, _ aw: Int, _ ah: Int, _ strategy: CropStrategy) -> CropWindow {
        SmartCrop.window(analysis: analysis, sourceWidth: sw, sourceHeight: sh, aspectWidth: aw, aspectHeight: ah, strategy: strategy)
    }

    /// Grey with a little texture everywhere and, around (`cx`, `cy`), a disc of skin tone.
    static func skinDisc(_ w: Int, _ h: Int, _ cx: Int, _ cy: Int, _ radius: Int) -> PixelBuffer {
        Pictures.make(w, h) { x, y in
            let inside = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius
            return inside ? (224, 172, 140, 255) : (UInt8(120 + (x + y) % 3), 120, 120, 255)
        }
    }

    @Test("center: the largest window of the aspect, centred")
    func center() {
        let analysis = Pictures.make(256, 128) { _, _ in (9, 9, 9, 255) }
        #expect(Self.window(analysis, 4000, 2000, 1, 1, .center) == CropWindow(x: 1000, y: 0, width: 2000, height: 2000))
        #expect(Self.window(analysis, 4000, 2000, 1200, 630, .center) == CropWindow(x: 95, y: 0, width: 3810, height: 2000))
        #expect(Self.window(analysis, 2000, 4001, 1, 1, .center) == CropWindow(x: 0, y: 1000, width: 2000, height: 2000))
    }

    @Test("Focal point: the window centred on it, kept inside the picture")
    func focalPoint() {
        let analysis = Pictures.make(192, 64) { _, _ in (9, 9, 9, 255) }
        #expect(Self.window(analysis, 3000, 1000, 1, 1, .focalPoint(x: 50, y: 50)) == CropWindow(x: 1000, y: 0, width: 1000, height: 1000))
        #expect(Self.window(analysis, 3000, 1000, 1, 1, .focalPoint(x: 40, y: 0)) == CropWindow(x: 700, y: 0, width: 1000, height: 1000))
        #expect(Self.window(analysis, 3000, 1000, 1, 1, .focalPoint(x: 0, y: 0)) == CropWindow(x: 0, y: 0, width: 1000, height: 1000))
        #expect(Self.window(analysis, 3000, 1000, 1, 1, .focalPoint(x: 100, y: 100)) == CropWindow(x: 2000, y: 0, width: 1000, height: 1000))
        #expect(Self.window(analysis, 1000, 3000, 2, 1, .focalPoint(x: 10, y: 90)) == CropWindow(x: 0, y: 2450, width: 1000, height: 500))
        // Out-of-range values (only the parser rules them out) are clamped, NaN is the centre.
        #expect(Self.window(analysis, 3000, 1000, 1, 1, .focalPoint(x: -50, y: .infinity)) == CropWindow(x: 0, y: 0, width: 1000, height: 1000))
        #expect(Self.window(analysis, 3000, 1000, 1, 1, .focalPoint(x: .nan, y: .nan)) == CropWindow(x: 1000, y: 0, width: 1000, height: 1000))
    }

    @Test("Attention: the window moves onto a skin-toned subject wherever it is; a flat picture gives the centre",
          arguments: [(200, 64), (40, 70), (128, 64)])
    func attention(_ cx: Int, _ cy: Int) {
        let analysis = Self.skinDisc(256, 128, cx, cy, 14)
        let window = Self.window(analysis, 2560, 1280, 1, 2, .attention)
        #expect(window.width == 640 && window.height == 1280)
        // The subject's centre (in source pixels) lies inside the window, well away from its edges.
        let subject = cx * 10
        #expect(window.x + 100 <= subject && subject <= window.x + window.width - 100, "\(window) for a subject at x \(subject)")
        let flat = Pictures.make(256, 128) { _, _ in (90, 140, 200, 255) }
        #expect(Self.window(flat, 2560, 1280, 1, 2, .attention) == Self.window(flat, 2560, 1280, 1, 2, .center))
    }

    @Test("Attention: what is transparent does not attract the crop")
    func attentionAlpha() {
        // A skin disc on the left that is fully transparent, a visible one on the right.
        let analysis = Pictures.make(256, 128, alpha: true) { x, y in
            let left = (x - 40) * (x - 40) + (y - 64) * (y - 64) <= 196
            let right = (x - 210) * (x - 210) + (y - 64) * (y - 64) <= 196
            if left { return (224, 172, 140, 0) }
            return right ? (224, 172, 140, 255) : (120, 120, 120, 255)
        }
        let window = Self.window(analysis, 256, 128, 1, 1, .attention)
        #expect(window.x + window.width > 210 && window.x > 40, "\(window)")
    }

    @Test("Entropy: the window goes to the busy part of the picture", arguments: [true, false])
    func entropy(_ busyRight: Bool) {
        var generator = SplitMix64(seed: 7)
        let noise = (0..<(256 * 128 * 3)).map { _ in UInt8(generator.next(below: 256)) }
        let analysis = Pictures.make(256, 128) { x, y in
            guard (x >= 128) == busyRight else { return (100, 100, 100, 255) }
            let at = 3 * (y * 256 + x)
            return (noise[at], noise[at + 1], noise[at + 2], 255)
        }
        let window = Self.window(analysis, 1024, 512, 1, 1, .entropy)
        #expect(window.width == 512 && window.height == 512)
        #expect(window.x == (busyRight ? 512 : 0), "\(window)")
    }

    @Test("Hostile sizes: empty or lying analysis pictures, zero or huge aspects, 1x1 sources: a window inside the source, no trap")
    func hostile() {
        var lying = Pictures.make(4, 4) { _, _ in (1, 2, 3, 255) }
        lying.width = 1 << 40
        let analyses = [PixelBuffer(width: 0, height: 0, channels: 3, pixels: []), lying,
                        Pictures.make(1, 1) { _, _ in (200, 150, 120, 255) }, Pictures.make(1, 256) { _, y in (UInt8(y), 0, 0, 255) },
                        Pictures.make(256, 1) { x, _ in (UInt8(x), 200, 0, 255) }]
        let strategies: [CropStrategy] = [.center, .attention, .entropy, .focalPoint(x: 100, y: 0)]
        for analysis in analyses {
            for strategy in strategies {
                for (sw, sh, aw, ah) in [(1, 1, 1, 1), (1, 256, 16, 9), (100000, 1, 1, 1), (0, -4, 3, 2), (640, 480, 0, 0),
                                         (640, 480, -1, 5), (640, 480, 1, 100000), (640, 480, Int.max, 1), (Int.max, Int.max, 1, 1)] {
                    let w = Self.window(analysis, sw, sh, aw, ah, strategy)
                    let (sourceWidth, sourceHeight) = (min(max(sw, 1), 1 << 24), min(max(sh, 1), 1 << 24))
                    #expect(w.x >= 0 && w.y >= 0 && w.width >= 1 && w.height >= 1
                            && w.x + w.width <= sourceWidth && w.y + w.height <= sourceHeight,
                            "\(strategy) \(sw)x\(sh) \(aw):\(ah) on \(analysis.width)x\(analysis.height): \(w)")
                }
            }
        }
        // No aspect given: the whole source.
        #expect(Self.window(analyses[2], 640, 480, 0, 0, .attention) == CropWindow(x: 0, y: 0, width: 640, height: 480))
    }
}
