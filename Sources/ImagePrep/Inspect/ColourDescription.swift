/// How `imgprep info` describes colour: an ICC profile by name, nclx code points by what they mean.
extension NCLXColor {
    /// "BT.2020 / PQ": primaries and transfer by name (ITU-T H.273), or the code point when unnamed.
    public var name: String { "\(Self.primariesName(primaries)) / \(Self.transferName(transfer))" }

    /// "nclx: BT.2020 / PQ (matrix BT.2020 non-constant, full range; code points 9/16/9)".
    public var summary: String {
        "nclx: \(name) (matrix \(Self.matrixName(matrix)), \(fullRange ? "full" : "limited") range; code points \(primaries)/\(transfer)/\(matrix))"
    }

    static func primariesName(_ code: Int) -> String {
        switch code {
        case 1: "BT.709/sRGB"
        case 2: "unspecified primaries"
        case 4: "BT.470 M"
        case 5: "BT.601 625"
        case 6, 7: "BT.601 525"
        case 8: "generic film"
        case 9: "BT.2020"
        case 10: "XYZ"
        case 11: "DCI-P3"
        case 12: "Display P3"
        case 22: "EBU 3213"
        default: "primaries \(code)"
        }
    }

    static func transferName(_ code: Int) -> String {
        switch code {
        case 1, 6, 14, 15: "BT.709"
        case 2: "unspecified transfer"
        case 4: "gamma 2.2"
        case 5: "gamma 2.8"
        case 7: "SMPTE 240M"
        case 8: "linear"
        case 13: "sRGB"
        case 16: "PQ"
        case 17: "SMPTE 428"
        case 18: "HLG"
        default: "transfer \(code)"
        }
    }

    static func matrixName(_ code: Int) -> String {
        switch code {
        case 0: "identity (RGB)"
        case 1: "BT.709"
        case 2: "unspecified"
        case 5, 6: "BT.601"
        case 9: "BT.2020 non-constant"
        case 10: "BT.2020 constant"
        case 14: "ICtCp"
        default: "\(code)"
        }
    }
}
