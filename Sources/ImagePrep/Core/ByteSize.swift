/// Parses byte counts the way a user writes them: `250000`, `250000B`, `500KB`, `1.5MB`, `200k`, `1M`
/// (SI, powers of 1000: a prefix alone means the same as with its `B`), `512KiB`, `1MiB` (binary, powers of
/// 1024). Letters in any case but one: a lowercase final `b` is a bit (`1Mb` is a megabit), so it is
/// refused with the spelling that works rather than guessed (ImageMagick reads `1mb` as one byte).
public enum ByteSize {
    /// Which units the user wrote a size in, so messages echo it the same way (`200KiB` → "200 KiB").
    public enum Family: String, Sendable, Equatable, Codable {
        case bytes, decimal, binary
    }

    /// Multipliers by prefix, lowercased; "" is bytes.
    static let prefixes: [String: (multiplier: Double, family: Family)] = [
        "": (1, .bytes),
        "k": (1e3, .decimal), "m": (1e6, .decimal), "g": (1e9, .decimal),
        "ki": (1024, .binary), "mi": (1_048_576, .binary), "gi": (1_073_741_824, .binary),
    ]

    public static func parse(_ text: String) -> Int? { parseWithFamily(text)?.bytes }

    /// The byte count and the unit family it was written in.
    public static func parseWithFamily(_ text: String) -> (bytes: Int, family: Family)? {
        guard let split = split(text), !split.bits, let (multiplier, family) = prefixes[split.prefix.lowercased()]
        else { return nil }
        let bytes = (split.value * multiplier).rounded(.down)
        guard bytes >= 1, bytes < Double(Int.max / 2) else { return nil }
        return (Int(bytes), family)
    }

    /// For a size written in bits (`1Mb`, `500kb`), what it means and the spelling that works; nil for
    /// anything else.
    public static func hint(for text: String) -> String? {
        guard let split = split(text), split.bits, prefixes[split.prefix.lowercased()] != nil else { return nil }
        let prefix = split.prefix.lowercased()
        let name = ["": "bits", "k": "kilobits", "m": "megabits", "g": "gigabits",
                    "ki": "kibibits", "mi": "mebibits", "gi": "gibibits"][prefix] ?? "bits"
        let bytesPrefix = prefix.isEmpty ? "" : prefix == "k" ? "k" : prefix.prefix(1).uppercased() + prefix.dropFirst()
        return "a lowercase b is a bit ('\(text.trimmingCharacters(in: .whitespaces))' is \(name)); for bytes write \(split.number)\(bytesPrefix)B"
    }

    /// `1.5 MB` → number "1.5" (checked: digits with at most one inner point), prefix "M", whether the
    /// unit ends in a lowercase `b`; nil when the text is not a number and a unit.
    private static func split(_ text: String) -> (number: Substring, value: Double, prefix: String, bits: Bool)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let end = trimmed.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ".")) }) ?? trimmed.endIndex
        let number = trimmed[..<end]
        var unit = trimmed[end...].trimmingCharacters(in: .whitespaces)
        guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, number.first != ".", number.last != ".",
              let value = Double(number) else { return nil }
        var bits = false
        if unit.hasSuffix("B") {
            unit.removeLast()
        } else if unit.hasSuffix("b") {
            unit.removeLast()
            bits = true
        }
        return (number, value, unit, bits)
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
