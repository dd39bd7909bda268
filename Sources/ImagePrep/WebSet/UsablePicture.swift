extension PixelBuffer {
    /// Whether the web-set operations can read it: not empty, RGB or RGBA, no side past
    /// `BoxGeometry.maxSide`, and as many bytes as its size says (its fields are public and settable, so a
    /// caller's buffer is checked before any index is computed from them).
    var isUsable: Bool {
        width >= 1 && height >= 1 && (channels == 3 || channels == 4) && width <= BoxGeometry.maxSide
            && height <= BoxGeometry.maxSide && pixels.count == width * height * channels
    }
}
