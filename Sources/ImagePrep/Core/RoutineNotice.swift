import Foundation

/// Warnings that say the same thing of every file of a kind and change nothing the user chose: a block
/// the output format has no place for, the claims of a gain map the file does not hold. A batch reports
/// them per file only when asked (-v) and otherwise counts them; every other warning (a picture shrunk to
/// fit, HDR lost, metadata that could not be kept) changes what the user gets and stays on its file.
public enum RoutineNotice {
    /// A metadata block the output format cannot carry ("IPTC data", "WEBP").
    static func noPlace(for block: String, in format: String) -> String {
        "dropped the \(block): \(format) has no place for it"
    }

    static let unbackedGainMapClaims = "removed the claims of an HDR gain map: the file holds none that imgprep can read"

    /// Whether `warning` is routine (see above).
    public static func isRoutine(_ warning: String) -> Bool {
        warning == unbackedGainMapClaims || noPlaceParts(warning) != nil
    }

    /// One line for `count` files that had the routine `warning`: "IPTC data dropped from 12 WEBP outputs".
    public static func summary(_ warning: String, count: Int) -> String {
        let files = count == 1 ? "1 file" : "\(count) files"
        if let (block, format) = noPlaceParts(warning) {
            return "\(block) dropped from \(count) \(format) output\(count == 1 ? "" : "s") (\(format) has no place for it; -v names them)"
        }
        return "\(warning) (\(files); -v names them)"
    }

    private static func noPlaceParts(_ warning: String) -> (block: String, format: String)? {
        let prefix = "dropped the ", suffix = " has no place for it"
        guard warning.hasPrefix(prefix), warning.hasSuffix(suffix) else { return nil }
        let middle = warning.dropFirst(prefix.count).dropLast(suffix.count)
        guard let colon = middle.range(of: ": ", options: .backwards) else { return nil }
        return (String(middle[..<colon.lowerBound]), String(middle[colon.upperBound...]))
    }
}
