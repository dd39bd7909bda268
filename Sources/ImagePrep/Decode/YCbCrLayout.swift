/// What a picture's Y'CbCr 4:2:0 planes hold, so that no stage takes one matrix or range for another,
/// or Y'CbCr for RGB. Samples are 8-bit and chroma is halved on both axes (deeper or fuller chroma goes
/// through RGB); the encoders that take planes convert to their own layout, without RGB, when it differs.
public struct YCbCrLayout: Sendable, Equatable, CustomStringConvertible {
    /// The weights of red and blue in luma (H.273 matrix_coefficients).
    public enum Matrix: Sendable, Equatable {
        case bt601, bt709

        /// Kr and Kb.
        var weights: (red: Double, blue: Double) {
            switch self {
            case .bt601: (0.299, 0.114)
            case .bt709: (0.2126, 0.0722)
            }
        }

        /// H.273 matrix_coefficients: 5 and 6 are both BT.601's weights; 2 (unspecified) is read as BT.601, as libheif does.
        init?(code: Int) {
            switch code {
            case 1: self = .bt709
            case 2, 5, 6: self = .bt601
            default: return nil
            }
        }
    }

    /// Full range: Y' and Cb/Cr use 0...255. Limited ("video") range: Y' 16...235, Cb/Cr 16...240.
    public enum Range: Sendable, Equatable { case full, limited }

    public var matrix: Matrix
    public var range: Range
    public var siting: ChromaSiting

    public init(matrix: Matrix, range: Range, siting: ChromaSiting) {
        self.matrix = matrix
        self.range = range
        self.siting = siting
    }

    /// JFIF's: what a 4:2:0 JPEG stores and libjpeg writes (a format's other layouts live in its folder).
    public static let jfif = YCbCrLayout(matrix: .bt601, range: .full, siting: .centred)

    public var description: String {
        "Y'CbCr 4:2:0, \(matrix == .bt601 ? "BT.601" : "BT.709"), \(range == .full ? "full" : "limited") range, "
            + "chroma \(siting == .centred ? "centred" : "off centre by (\(siting.x), \(siting.y)) pixels")"
    }
}

/// Where each chroma sample sits relative to the centre of its 2x2 luma block, in luma pixels: (0, 0) between
/// the columns and rows (JPEG, WebP), (-0.5, 0) on the left column (H.273 type 0, HEVC's default). A turn or
/// mirror moves it with the picture; resampling takes it into account and writes centred chroma.
public struct ChromaSiting: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public static let centred = ChromaSiting(x: 0, y: 0)
    public static let left = ChromaSiting(x: -0.5, y: 0)

    /// The offset as it points once the picture is shown as `orientation` says.
    func oriented(_ orientation: ExifOrientation) -> ChromaSiting {
        switch orientation {
        case .up: self
        case .upMirrored: ChromaSiting(x: -x, y: y)
        case .down: ChromaSiting(x: -x, y: -y)
        case .downMirrored: ChromaSiting(x: x, y: -y)
        case .leftMirrored: ChromaSiting(x: y, y: x)        // transpose
        case .right: ChromaSiting(x: -y, y: x)              // 90° clockwise: right becomes down
        case .rightMirrored: ChromaSiting(x: -y, y: -x)     // transverse
        case .left: ChromaSiting(x: y, y: -x)               // 90° counter-clockwise: right becomes up
        }
    }
}
