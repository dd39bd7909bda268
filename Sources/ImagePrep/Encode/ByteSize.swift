/// Parses byte counts the way a user writes them: `250000`, `250000B`, `500KB`, `1.5MB` (SI, powers of
/// 1000), `512KiB`, `1MiB` (binary, powers of 1024), any letter case. Anything else is rejected rather
/// than guessed (ImageMagick reads `1mb` as one byte).
public enum ByteSize {
    static let units: [String: Double] = [
        "": 1, "b": 1,
        "kb": 1e3, "mb": 1e6, "gb": 1e9,
        "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824,
    ]

    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let split = trimmed.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }) ?? Optional(trimmed.endIndex)
        else { return nil }
        let number = trimmed[..<split], unit = trimmed[split...].trimmingCharacters(in: .whitespaces).lowercased()
        guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, number.first != ".", number.last != ".",
              let value = Double(number), let multiplier = units[unit] else { return nil }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes >= 1, bytes < Double(Int.max / 2) else { return nil }
        return Int(bytes)
    }

    /// `1000000` → "1 MB", `204800` → "204.8 KB", `2000000000` → "2 GB": how budgets are echoed back in messages.
    public static func format(_ bytes: Int) -> String {
        if bytes >= 1_000_000_000 { return trim(Double(bytes) / 1e9) + " GB" }
        if bytes >= 1_000_000 { return trim(Double(bytes) / 1e6) + " MB" }
        if bytes >= 1000 { return trim(Double(bytes) / 1e3) + " KB" }
        return "\(bytes) B"
    }

    private static func trim(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

import Foundation
