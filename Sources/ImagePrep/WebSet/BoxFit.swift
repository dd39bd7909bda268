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
    public init?(parsing text: String) {
        nil  // stub
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
    public static func plan(sourceWidth: Int, sourceHeight: Int, boxWidth: Int, boxHeight: Int, fit: BoxFit,
                            enlarge: Bool = false, cropWindow: CropWindow? = nil) -> BoxPlan {
        let whole = CropWindow(x: 0, y: 0, width: sourceWidth, height: sourceHeight)  // stub
        return BoxPlan(window: whole, scaledWidth: sourceWidth, scaledHeight: sourceHeight,
                       canvasWidth: sourceWidth, canvasHeight: sourceHeight, offsetX: 0, offsetY: 0)
    }
}

public enum SmartCrop {
    /// The window of aspect `aspectWidth`:`aspectHeight`, as large as the source allows, placed by
    /// `strategy`, in the coordinates of the upright `sourceWidth`x`sourceHeight` picture. `analysis` is
    /// that picture reduced (upright, sRGB, long edge at most 256 px, same aspect) to look at.
    public static func window(analysis: PixelBuffer, sourceWidth: Int, sourceHeight: Int,
                              aspectWidth: Int, aspectHeight: Int, strategy: CropStrategy) -> CropWindow {
        CropWindow(x: 0, y: 0, width: sourceWidth, height: sourceHeight)  // stub
    }
}
