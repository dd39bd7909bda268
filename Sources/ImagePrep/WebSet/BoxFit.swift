/// `--fit`, with CSS `object-fit` and sharp's names.
public enum BoxFit: String, Sendable, CaseIterable, Codable {
    case inside, cover, contain, fill
}

/// `--crop` for `--fit cover`: where the window goes.
public enum CropStrategy: Sendable, Equatable, Codable {
    case center, attention, entropy
    /// A focal point the user knows, in percent of the upright picture (0...100 each).
    case focalPoint(x: Double, y: Double)

    /// `center`, `attention`, `entropy` or `X%,Y%`; nil when it is none of these.
    /// `X%,Y%` takes decimal numbers from 0 to 100, each with its `%` (`50%,30%`, `12.5%,100%`).
    public init?(parsing text: String) {
        switch text {
        case "center": self = .center
        case "attention": self = .attention
        case "entropy": self = .entropy
        default:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = Self.percent(parts[0]), let y = Self.percent(parts[1]) else { return nil }
            self = .focalPoint(x: x, y: y)
        }
    }

    /// `NN%` or `NN.N%` within 0...100; Double's own parser would also take "nan", "1e2" and "+5".
    private static func percent(_ text: Substring) -> Double? {
        guard text.hasSuffix("%") else { return nil }
        let number = text.dropLast()
        let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), pieces.allSatisfy({ !$0.isEmpty && $0.count <= 12 && $0.allSatisfy { ("0"..."9").contains($0) } }),
              let value = Double(number), (0...100).contains(value) else { return nil }
        return value
    }
}

/// A rectangle of the upright source picture, in its pixels.
public struct CropWindow: Sendable, Equatable, Codable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// How one output is made from the upright source for a box: which window of the source is resampled to
/// which size, and where that lands on an output canvas (padded with the background for `contain`).
public struct BoxPlan: Sendable, Equatable {
    /// The part of the source used (the whole source except for `cover`).
    public var window: CropWindow
    /// The size the window is resampled to.
    public var scaledWidth: Int, scaledHeight: Int
    /// The output's size (bigger than the scaled size only for `contain`, which pads).
    public var canvasWidth: Int, canvasHeight: Int
    /// Where the scaled window goes on the canvas.
    public var offsetX: Int, offsetY: Int
}

public enum BoxGeometry {
    /// The plan for fitting a `sourceWidth`x`sourceHeight` picture into `boxWidth`x`boxHeight` (both > 0).
    /// Never enlarges unless `enlarge`: a source smaller than the box gives the largest output of the box's
    /// aspect (for cover, contain and fill) the source can fill. `window` for cover is placed at
    /// `cropWindow` (from SmartCrop, source coordinates); pass nil for the centre.
    /// Sizes below 1 are taken as 1 and above `maxSide` as `maxSide` (no picture is that large), so the
    /// arithmetic never overflows and every size in the plan is at least 1.
    public static func plan(sourceWidth: Int, sourceHeight: Int, boxWidth: Int, boxHeight: Int, fit: BoxFit,
                            enlarge: Bool = false, cropWindow: CropWindow? = nil) -> BoxPlan {
        let (sw, sh) = (clampSide(sourceWidth), clampSide(sourceHeight))
        let (bw, bh) = (clampSide(boxWidth), clampSide(boxHeight))
        let whole = CropWindow(x: 0, y: 0, width: sw, height: sh)
        // Whether the source is wider than the box, aspect for aspect (sw/sh >= bw/bh).
        let wider = sw * bh >= sh * bw
        // The box's aspect at the source's scale: inside the source (what cover crops to) and around it.
        let within = wider ? (scale(sh, bw, bh), sh) : (sw, scale(sw, bh, bw))
        let around = wider ? (sw, scale(sw, bh, bw)) : (scale(sh, bw, bh), sh)
        let fitsInBox = sw <= bw && sh <= bh
        let coversBox = sw >= bw && sh >= bh

        func plan(_ window: CropWindow, _ scaled: (Int, Int), canvas: (Int, Int)? = nil) -> BoxPlan {
            let canvas = canvas ?? scaled
            return BoxPlan(window: window, scaledWidth: scaled.0, scaledHeight: scaled.1,
                           canvasWidth: canvas.0, canvasHeight: canvas.1,
                           offsetX: (canvas.0 - scaled.0) / 2, offsetY: (canvas.1 - scaled.1) / 2)
        }
        // The source fitted inside the box, limited by the axis on which it is relatively larger.
        let inside = wider ? (bw, min(bh, scale(sh, bw, sw))) : (min(bw, scale(sw, bh, sh)), bh)

        switch fit {
        case .inside:
            return plan(whole, fitsInBox && !enlarge ? (sw, sh) : inside)
        case .contain:
            if fitsInBox && !enlarge { return plan(whole, (sw, sh), canvas: around) }
            return plan(whole, inside, canvas: (bw, bh))
        case .fill:
            return plan(whole, coversBox || enlarge ? (bw, bh) : within)
        case .cover:
            let window = place(width: within.0, height: within.1, sourceWidth: sw, sourceHeight: sh, centredOn: cropWindow)
            return plan(window, coversBox || enlarge ? (bw, bh) : within)
        }
    }

    /// A side no picture imgprep handles exceeds (2^24; WebP stops at 16383, JPEG at 65535).
    static let maxSide = 1 << 24

    static func clampSide(_ side: Int) -> Int { min(max(side, 1), maxSide) }

    /// `side` * `numerator` / `denominator`, rounded half up, at least 1 (all three are in 1...maxSide).
    static func scale(_ side: Int, _ numerator: Int, _ denominator: Int) -> Int {
        max(1, (2 * side * numerator + denominator) / (2 * denominator))
    }

    /// A `width`x`height` window centred on `centre`'s centre (the source's when nil), kept inside the source.
    static func place(width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, centredOn centre: CropWindow?) -> CropWindow {
        let (w, h) = (min(max(width, 1), sourceWidth), min(max(height, 1), sourceHeight))
        guard let centre else {
            return CropWindow(x: (sourceWidth - w) / 2, y: (sourceHeight - h) / 2, width: w, height: h)
        }
        // In Double, so a hostile window (Int.max) cannot overflow; clamped before converting back.
        func start(_ origin: Int, _ size: Int, _ length: Int, _ side: Int) -> Int {
            let left = Double(origin) + Double(size) / 2 - Double(length) / 2
            return Int(min(max(left.rounded(), 0), Double(side - length)))
        }
        return CropWindow(x: start(centre.x, centre.width, w, sourceWidth),
                          y: start(centre.y, centre.height, h, sourceHeight), width: w, height: h)
    }
}

public enum SmartCrop {
    /// The window of aspect `aspectWidth`:`aspectHeight`, as large as the source allows, placed by
    /// `strategy`, in the coordinates of the upright `sourceWidth`x`sourceHeight` picture. `analysis` is
    /// that picture reduced (upright, sRGB, long edge at most 256 px, same aspect) to look at.
    /// Sizes below 1 are taken as 1; an aspect with a side below 1 as the source's own.
    public static func window(analysis: PixelBuffer, sourceWidth: Int, sourceHeight: Int,
                              aspectWidth: Int, aspectHeight: Int, strategy: CropStrategy) -> CropWindow {
        let (sw, sh) = (BoxGeometry.clampSide(sourceWidth), BoxGeometry.clampSide(sourceHeight))
        let aspectGiven = aspectWidth >= 1 && aspectHeight >= 1
        let (aw, ah) = aspectGiven ? (BoxGeometry.clampSide(aspectWidth), BoxGeometry.clampSide(aspectHeight)) : (sw, sh)
        let (w, h) = sw * ah >= sh * aw ? (BoxGeometry.scale(sh, aw, ah), sh) : (sw, BoxGeometry.scale(sw, ah, aw))
        let centre: (x: Double, y: Double)?
        switch strategy {
        case .center:
            centre = nil
        case .focalPoint(let x, let y):
            func fraction(_ percent: Double) -> Double { percent.isNaN ? 0.5 : min(max(percent, 0), 100) / 100 }
            centre = (fraction(x) * Double(sw), fraction(y) * Double(sh))
        case .attention:
            // libvips maps the peak's cell back by its top-left corner (x_pos / hscale); so do we, to agree.
            centre = AttentionMap.peak(of: analysis, window: (Double(w) / Double(sw), Double(h) / Double(sh)))
                .map { (Double($0.x) * Double(sw) / Double(AttentionMap.side), Double($0.y) * Double(sh) / Double(AttentionMap.side)) }
        case .entropy:
            centre = EntropyCrop.centre(of: analysis, window: (Double(w) / Double(sw), Double(h) / Double(sh)))
                .map { ($0.x * Double(sw), $0.y * Double(sh)) }
        }
        guard let centre else {
            return BoxGeometry.place(width: w, height: h, sourceWidth: sw, sourceHeight: sh, centredOn: nil)
        }
        // Like libvips: left = centre - width / 2, then clamped into the picture.
        func start(_ c: Double, _ length: Int, _ side: Int) -> Int {
            min(max(Int(c.rounded(.down)) - length / 2, 0), side - length)
        }
        return CropWindow(x: start(centre.x, w, sw), y: start(centre.y, h, sh), width: w, height: h)
    }
}
