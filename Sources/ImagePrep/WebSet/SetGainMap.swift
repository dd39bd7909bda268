/// A set's HDR gain map: the source's map turned upright once, then cut to each size's window and scaled
/// to it like the picture, so each variant that can carry a map (JPEG, as Ultra HDR) carries its own.
struct SetGainMap {
    /// Upright, covering the whole upright picture.
    let map: GainMap
    /// The upright picture's size in the plans' coordinates (the header's, before shrink-on-load).
    let upright: (width: Int, height: Int)

    init?(_ decoded: DecodedImage, upright: (width: Int, height: Int)) {
        guard let source = decoded.gainMap.gainMap, upright.width > 0, upright.height > 0 else { return nil }
        map = source.oriented(decoded.orientation)
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
            // A map is often a quarter of the picture's sides; its window is at least one pixel.
            let plane = map.plane
            let window = SetPipeline.pixelWindow(plan.window, upright: upright, width: plane.width, height: plane.height)
            windowed.plane = GainMapPlane(width: window.width, height: window.height, channels: plane.channels,
                                          pixels: SetPipeline.cropped(plane.pixels, width: plane.width, channels: plane.channels, to: window))
        }
        let windowSize = whole ? upright : (plan.window.width, plan.window.height)
        // The map keeps its own resolution relative to the picture (see GainMap.scaled).
        return windowed.scaled(from: windowSize, to: (plan.scaledWidth, plan.scaledHeight), threads: threads)
    }
}
