/// EXIF Orientation (tag 0x0112): how the stored pixels must be transformed to be upright.
/// Raw values outside 1...8 (0 is common) mean "as stored".
public enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1            // as stored
    case upMirrored = 2    // flip left-right
    case down = 3          // rotate 180
    case downMirrored = 4  // flip top-bottom
    case leftMirrored = 5  // transpose (flip across the top-left/bottom-right diagonal)
    case right = 6         // rotate 90 clockwise
    case rightMirrored = 7 // transverse
    case left = 8          // rotate 90 counter-clockwise

    public init(exifValue: Int) {
        self = ExifOrientation(rawValue: exifValue) ?? .up
    }

    /// Whether applying it swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}
