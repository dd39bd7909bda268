/// Parses byte counts the way a user writes them: `250000`, `250000B`, `500KB`, `1.5MB` (SI, powers of
/// 1000), `512KiB`, `1MiB` (binary, powers of 1024), any letter case. Anything else is rejected rather
/// than guessed (ImageMagick reads `1mb` as one byte).
public enum ByteSize {
    /// Which units the user wrote a size in, so messages echo it the same way (`200KiB` → "200 KiB").
    public enum Family: String, Sendable, Equatable, Codable {
        case bytes, decimal, binary
    }

    static let units: [String: (multiplier: Double, family: Family)] = [
        "": (1, .bytes), "b": (1, .bytes),
        "kb": (1e3, .decimal), "mb": (1e6, .decimal), "gb": (1e9, .decimal),
        "kib": (1024, .binary), "mib": (1_048_576, .binary), "gib": (1_073_741_824, .binary),
    ]

    public static func parse(_ text: String) -> Int? { parseWithFamily(text)?.bytes }

    /// The byte count and the unit family it was written in.
    public static func parseWithFamily(_ text: String) -> (bytes: Int, family: Family)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let split = trimmed.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }) ?? Optional(trimmed.endIndex)
        else { return nil }
        let number = trimmed[..<split], unit = trimmed[split...].trimmingCharacters(in: .whitespaces).lowercased()
        guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, number.first != ".", number.last != ".",
              let value = Double(number), let (multiplier, family) = units[unit] else { return nil }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes >= 1, bytes < Double(Int.max / 2) else { return nil }
        return (Int(bytes), family)
    }

    /// How budgets are echoed back in messages, in the units the user gave: `1000000` → "1 MB",
    /// `204800` → "204.8 KB", or "200 KiB" in the binary family, or "204800 B" when given in bytes.
    public static func format(_ bytes: Int, family: Family = .decimal) -> String {
        switch family {
        case .bytes:
            return "\(bytes) B"
        case .decimal:
            if bytes >= 1_000_000_000 { return trim(Double(bytes) / 1e9) + " GB" }
            if bytes >= 1_000_000 { return trim(Double(bytes) / 1e6) + " MB" }
            if bytes >= 1000 { return trim(Double(bytes) / 1e3) + " KB" }
        case .binary:
            if bytes >= 1 << 30 { return trim(Double(bytes) / Double(1 << 30)) + " GiB" }
            if bytes >= 1 << 20 { return trim(Double(bytes) / Double(1 << 20)) + " MiB" }
            if bytes >= 1 << 10 { return trim(Double(bytes) / Double(1 << 10)) + " KiB" }
        }
        return "\(bytes) B"
    }

    private static func trim(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

import Foundation
