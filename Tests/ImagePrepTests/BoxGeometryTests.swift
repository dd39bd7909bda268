import Testing
@testable import ImagePrep

struct BoxGeometryTests {
    typealias Plan = (window: CropWindow, scaled: (Int, Int), canvas: (Int, Int), offset: (Int, Int))

    static func plan(_ sw: Int, _ sh: Int, _ bw: Int, _ bh: Int, _ fit: BoxFit, enlarge: Bool = false,
                     crop: CropWindow? = nil) -> Plan {
        let p = BoxGeometry.plan(sourceWidth: sw, sourceHeight: sh, boxWidth: bw, boxHeight: bh, fit: fit,
                                 enlarge: enlarge, cropWindow: crop)
        return (p.window, (p.scaledWidth, p.scaledHeight), (p.canvasWidth, p.canvasHeight), (p.offsetX, p.offsetY))
    }

    static func whole(_ w: Int, _ h: Int) -> CropWindow { CropWindow(x: 0, y: 0, width: w, height: h) }

    @Test("inside: fits within the box keeping the aspect; a smaller source stays as it is")
    func inside() {
        var p = Self.plan(4000, 3000, 1200, 630, .inside)
        #expect(p.window == Self.whole(4000, 3000) && p.scaled == (840, 630) && p.canvas == (840, 630) && p.offset == (0, 0))
        p = Self.plan(3000, 4000, 500, 500, .inside)
        #expect(p.scaled == (375, 500))
        p = Self.plan(333, 101, 100, 100, .inside)   // odd sizes: 30.33 rounds to 30
        #expect(p.scaled == (100, 30))
        p = Self.plan(300, 200, 1200, 630, .inside)
        #expect(p.scaled == (300, 200) && p.canvas == (300, 200))
        p = Self.plan(300, 200, 1200, 630, .inside, enlarge: true)
        #expect(p.scaled == (945, 630))
        p = Self.plan(1, 5000, 100, 100, .inside)   // 1xN: the short side never drops to 0
        #expect(p.scaled == (1, 100))
        p = Self.plan(5000, 1, 100, 100, .inside)
        #expect(p.scaled == (100, 1))
    }

    @Test("cover: fills the box exactly, the window of the box's aspect centred (or where asked), never enlarged")
    func cover() {
        var p = Self.plan(4000, 3000, 1200, 630, .cover)
        #expect(p.window == CropWindow(x: 0, y: 450, width: 4000, height: 2100) && p.scaled == (1200, 630) && p.canvas == (1200, 630))
        p = Self.plan(4000, 3000, 500, 500, .cover)
        #expect(p.window == CropWindow(x: 500, y: 0, width: 3000, height: 3000) && p.scaled == (500, 500))
        // Placed at SmartCrop's window, kept inside the picture however far off it is.
        p = Self.plan(4000, 3000, 500, 500, .cover, crop: CropWindow(x: 0, y: 0, width: 3000, height: 3000))
        #expect(p.window == CropWindow(x: 0, y: 0, width: 3000, height: 3000))
        p = Self.plan(4000, 3000, 500, 500, .cover, crop: CropWindow(x: 3900, y: 0, width: 10, height: 10))
        #expect(p.window == CropWindow(x: 1000, y: 0, width: 3000, height: 3000))
        p = Self.plan(4000, 3000, 500, 500, .cover, crop: CropWindow(x: Int.max, y: Int.min, width: Int.max, height: Int.max))
        #expect(p.window == CropWindow(x: 1000, y: 0, width: 3000, height: 3000))
        // Smaller than the box: the largest window of the box's aspect, at its own size.
        p = Self.plan(1000, 100, 200, 200, .cover)
        #expect(p.window == CropWindow(x: 450, y: 0, width: 100, height: 100) && p.scaled == (100, 100) && p.canvas == (100, 100))
        p = Self.plan(300, 200, 1200, 630, .cover)
        #expect(p.window == CropWindow(x: 0, y: 21, width: 300, height: 158) && p.scaled == (300, 158))
        p = Self.plan(300, 200, 1200, 630, .cover, enlarge: true)
        #expect(p.window == CropWindow(x: 0, y: 21, width: 300, height: 158) && p.scaled == (1200, 630))
        p = Self.plan(1, 7, 3, 3, .cover)
        #expect(p.window == CropWindow(x: 0, y: 3, width: 1, height: 1) && p.scaled == (1, 1))
        p = Self.plan(301, 201, 100, 100, .cover)   // odd: the centring rounds down
        #expect(p.window == CropWindow(x: 50, y: 0, width: 201, height: 201))
    }

    @Test("contain: fits and pads to the box; a smaller source is padded to the box's aspect at its own size")
    func contain() {
        var p = Self.plan(4000, 3000, 1200, 630, .contain)
        #expect(p.window == Self.whole(4000, 3000) && p.scaled == (840, 630) && p.canvas == (1200, 630) && p.offset == (180, 0))
        p = Self.plan(3000, 4001, 500, 500, .contain)
        #expect(p.scaled == (375, 500) && p.canvas == (500, 500) && p.offset == (62, 0))
        p = Self.plan(100, 50, 400, 400, .contain)
        #expect(p.scaled == (100, 50) && p.canvas == (100, 100) && p.offset == (0, 25))
        p = Self.plan(100, 50, 400, 400, .contain, enlarge: true)
        #expect(p.scaled == (400, 200) && p.canvas == (400, 400) && p.offset == (0, 100))
        p = Self.plan(1, 1, 16, 9, .contain)
        #expect(p.scaled == (1, 1) && p.canvas == (2, 1) && p.offset == (0, 0))
    }

    @Test("fill: stretched to the box; a smaller source to the largest box-aspect size it covers")
    func fill() {
        var p = Self.plan(4000, 3000, 1200, 630, .fill)
        #expect(p.window == Self.whole(4000, 3000) && p.scaled == (1200, 630) && p.canvas == (1200, 630))
        p = Self.plan(1000, 100, 200, 200, .fill)
        #expect(p.window == Self.whole(1000, 100) && p.scaled == (100, 100))
        p = Self.plan(1000, 100, 200, 200, .fill, enlarge: true)
        #expect(p.scaled == (200, 200))
    }

    @Test("Hostile sizes give a sane plan (every size >= 1, inside the source), never a trap")
    func hostile() {
        for fit in BoxFit.allCases {
            for (sw, sh, bw, bh) in [(0, 0, 0, 0), (-5, 10, 10, -3), (Int.max, Int.max, Int.max, 1), (1, Int.max, 1, 1), (7, 3, Int.min, Int.min)] {
                let p = BoxGeometry.plan(sourceWidth: sw, sourceHeight: sh, boxWidth: bw, boxHeight: bh, fit: fit)
                #expect(p.scaledWidth >= 1 && p.scaledHeight >= 1 && p.canvasWidth >= p.scaledWidth && p.canvasHeight >= p.scaledHeight)
                #expect(p.window.x >= 0 && p.window.y >= 0 && p.window.width >= 1 && p.window.height >= 1)
                #expect(p.offsetX >= 0 && p.offsetY >= 0)
            }
        }
    }

    @Test("Every fit on many sizes: never enlarged, output within the box, cover and fill exactly the box when the source covers it")
    func sweep() {
        for (sw, sh) in [(1, 1), (1, 9), (9, 1), (17, 13), (640, 427), (4000, 3000), (3000, 4000), (5000, 3)] {
            for (bw, bh) in [(1, 1), (16, 9), (100, 100), (1200, 630), (480, 1920), (7, 5)] {
                for fit in BoxFit.allCases {
                    let p = Self.plan(sw, sh, bw, bh, fit)
                    #expect(p.scaled.0 <= p.window.width && p.scaled.1 <= p.window.height, "\(fit) \(sw)x\(sh) in \(bw)x\(bh) enlarged: \(p)")
                    #expect(p.canvas.0 <= max(bw, sw) && p.canvas.1 <= max(bh, sh) && p.scaled.0 <= bw && p.scaled.1 <= bh,
                            "\(fit) \(sw)x\(sh) in \(bw)x\(bh): \(p)")
                    #expect(p.window.x + p.window.width <= sw && p.window.y + p.window.height <= sh)
                    if (fit == .cover || fit == .fill) && sw >= bw && sh >= bh { #expect(p.canvas == (bw, bh)) }
                    if fit == .contain && sw >= bw && sh >= bh { #expect(p.canvas == (bw, bh)) }
                }
            }
        }
    }
}
