/// A set's HDR gain map: the source's map turned upright once, then cut to each size's window and scaled
/// to it like the picture, so each variant that can carry a map (JPEG, as Ultra HDR) carries its own.
struct SetGainMap {
    /// Upright, covering the whole upright picture.
    let map: GainMap
    /// The upright picture's size in the plans' coordinates (the header's, before shrink-on-load).
    let upright: (width: Int, height: Int)

    init?(_ decoded: DecodedImage, upright: (width: Int, height: Int)) {
        guard let source = decoded.gainMap.gainMap, upright.width > 0, upright.height > 0 else { return nil }
        map = GainMap(plane: source.plane.oriented(decoded.orientation), metadata: source.metadata, origin: source.origin)
        self.upright = upright
    }

    /// The map for one size: the plan's window of it, scaled in proportion to the window's scaling. Nil for
    /// a padded box (`--fit contain`), whose padding has no HDR values of its own.
    func fitted(to plan: BoxPlan, threads: Int) -> GainMap? {
        guard (plan.canvasWidth, plan.canvasHeight) == (plan.scaledWidth, plan.scaledHeight),
              plan.window.width > 0, plan.window.height > 0 else { return nil }
        let whole = plan.window == CropWindow(x: 0, y: 0, width: upright.width, height: upright.height)
        var windowed = map
        if !whole {
            // The window in the map's pixels, at least one: a map is often a quarter of the picture's sides.
            let plane = map.plane
            let sx = Double(plane.width) / Double(upright.width), sy = Double(plane.height) / Double(upright.height)
            let x = min(plane.width - 1, max(0, Int(Double(plan.window.x) * sx)))
            let y = min(plane.height - 1, max(0, Int(Double(plan.window.y) * sy)))
            let width = max(1, min(plane.width - x, Int((Double(plan.window.width) * sx).rounded())))
            let height = max(1, min(plane.height - y, Int((Double(plan.window.height) * sy).rounded())))
            var pixels: [UInt8] = []
            pixels.reserveCapacity(width * height)
            for row in y..<(y + height) {
                let start = row * plane.width + x
                pixels += plane.pixels[start..<(start + width)]
            }
            windowed.plane = GrayPlane(width: width, height: height, pixels: pixels)
        }
        let windowSize = whole ? upright : (plan.window.width, plan.window.height)
        // The map keeps its own resolution relative to the picture (see GainMap.scaled).
        return windowed.scaled(from: windowSize, to: (plan.scaledWidth, plan.scaledHeight), threads: threads)
    }
}
