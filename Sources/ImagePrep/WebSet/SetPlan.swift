/// The sizes of a set's variants for one upright source, before any pixel is touched: each width asked
/// for that the source can fill, plus the source's own (largest) size when any was dropped, so the
/// largest variant is never upscaled.
public enum SetPlan {
    public struct Size: Sendable, Equatable {
        /// The width asked for (nil: the source's own size, added).
        public var requestedWidth: Int?
        public var plan: BoxPlan
        public var width: Int { plan.canvasWidth }
        public var height: Int { plan.canvasHeight }
    }

    /// Ascending by width, one size per width.
    /// - Parameters:
    ///   - maxDimension: `--max-dimension`, for a set without widths or box.
    ///   - cropWindow: SmartCrop's window for `--fit cover` (nil: centred).
    public static func sizes(sourceWidth: Int, sourceHeight: Int, settings: SetSettings, maxDimension: Int? = nil,
                             cropWindow: CropWindow? = nil) -> [Size] {
        guard sourceWidth > 0, sourceHeight > 0 else { return [] }
        let whole = CropWindow(x: 0, y: 0, width: sourceWidth, height: sourceHeight)
        func scaled(_ width: Int, _ height: Int) -> BoxPlan {
            BoxPlan(window: whole, scaledWidth: width, scaledHeight: height, canvasWidth: width, canvasHeight: height, offsetX: 0, offsetY: 0)
        }
        // The largest size the source gives without enlarging, and the plan for a width (nil when the
        // source is too small for it).
        let largest: BoxPlan
        let planFor: (Int) -> BoxPlan?
        if let box = settings.box {
            func boxPlan(_ width: Int, _ height: Int, enlarge: Bool) -> BoxPlan {
                BoxGeometry.plan(sourceWidth: sourceWidth, sourceHeight: sourceHeight, boxWidth: width, boxHeight: height,
                                 fit: settings.fit, enlarge: enlarge, cropWindow: cropWindow)
            }
            // A box at least as large as the source on both sides, of the box's aspect.
            let times = max(sourceWidth / box.width, sourceHeight / box.height) + 1
            largest = boxPlan(box.width * times, box.height * times, enlarge: false)
            planFor = { width in
                let height = max(1, Int((Double(width) * Double(box.height) / Double(box.width)).rounded()))
                let plan = boxPlan(width, height, enlarge: false)
                return plan == boxPlan(width, height, enlarge: true) ? plan : nil
            }
            if settings.widths == nil {
                return [Size(requestedWidth: box.width, plan: planFor(box.width) ?? largest)]
            }
        } else {
            let full = maxDimension.map { fittedSize(width: sourceWidth, height: sourceHeight, maxDimension: $0) }
                ?? (width: sourceWidth, height: sourceHeight)
            largest = scaled(full.width, full.height)
            planFor = { width in
                guard width <= full.width else { return nil }
                return scaled(width, max(1, Int((Double(width) * Double(sourceHeight) / Double(sourceWidth)).rounded())))
            }
        }
        guard let widths = settings.widths else { return [Size(requestedWidth: nil, plan: largest)] }
        var sizes: [Size] = []
        var dropped = false
        for width in widths {
            if let plan = planFor(width) { sizes.append(Size(requestedWidth: width, plan: plan)) } else { dropped = true }
        }
        if dropped || sizes.isEmpty, !sizes.contains(where: { $0.width == largest.canvasWidth }) {
            sizes.append(Size(requestedWidth: nil, plan: largest))
        }
        sizes.sort { $0.width < $1.width }
        // Two widths the source fills alike (a box's rounding) are one variant.
        var unique: [Size] = []
        for size in sizes where unique.last?.width != size.width { unique.append(size) }
        return unique
    }
}
