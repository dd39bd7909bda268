/// The colour a page can paint before anything loads.
public enum DominantColor {
    /// `#rrggbb` (lower case) of `picture` (upright, sRGB, any size).
    public static func hex(of picture: PixelBuffer) -> String {
        "#000000"  // stub
    }
}
