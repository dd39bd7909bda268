import ImagePrep

/// Text from files (names, EXIF strings, comments, library messages) made safe to print for a person:
/// a name or a camera Make holding `ESC ] 0 ; … BEL` would otherwise retitle or recolour the terminal.
/// Every human-facing line goes through `line`; JSON has its own escaping (JSONLine).
///
/// GNU `ls -b` style: control characters (C0, DEL, and C1 as its UTF-8 bytes) and bytes that are not
/// UTF-8 become backslash escapes (`\n`, `\t`, `\033`, `\302\233`, `\377`) and a backslash becomes `\\`,
/// so the printed text is unambiguous and plain ASCII wherever it was not printable.
enum TerminalText {
    static func line(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: out += "\\\\"
            case 0x07: out += "\\a"
            case 0x08: out += "\\b"
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0B: out += "\\v"
            case 0x0C: out += "\\f"
            case 0x0D: out += "\\r"
            // The top of plane 16 is where RawPath keeps the bytes of a name that are not UTF-8:
            // written out, each is that one byte again.
            case 0x00..<0x20, 0x7F...0x9F, 0x10FF80...0x10FFFF:
                for byte in RawPath.bytes(String(scalar)) { out += octal(byte) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func octal(_ byte: UInt8) -> String {
        "\\" + String(byte >> 6) + String((byte >> 3) & 7) + String(byte & 7)
    }
}
