import Foundation
import ImagePrep

/// One JSON object per line on standard output, always valid UTF-8. File names are bytes, not text:
/// a name that is not UTF-8 is written lossily (U+FFFD for each byte that is not) and, beside it, exactly
/// in base64 under the same key with `_bytes` added (`input_bytes`), so a script can still find the file.
enum JSONLine {
    static func print(_ object: [String: Any]) {
        var line = ""
        write(object, to: &line)
        StandardStream.output.write(line + "\n")
    }

    /// Compact JSON with sorted keys, written by hand: JSONSerialization costs about a third of a
    /// millisecond per line here, which a list of a million files would spend in the main process.
    static func write(_ value: Any, to out: inout String) {
        switch value {
        case let text as String:
            out += "\""
            for scalar in RawPath.lossy(text).unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):   // C1 and DEL too: a terminal may act on them
                    out += "\\u00" + String(scalar.value, radix: 16).leftPadded(to: 2)
                default: out.unicodeScalars.append(scalar)
                }
            }
            out += "\""
        case let flag as Bool: out += flag ? "true" : "false"
        case let number as Int: out += String(number)
        case let number as Double: out += number.isFinite ? "\(number)" : "null"
        case let list as [Any]:
            out += "["
            for (index, element) in list.enumerated() {
                if index > 0 { out += "," }
                write(element, to: &out)
            }
            out += "]"
        case let object as [String: Any]:
            out += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                write(key, to: &out)
                out += ":"
                write(object[key] as Any, to: &out)
            }
            out += "}"
        default: out += "null"   // NSNull, nil
        }
    }

    /// `object` with `path` under `key`, plus `key_bytes` when the name is not UTF-8.
    static func naming(_ path: String, as key: String, in object: [String: Any]) -> [String: Any] {
        var object = object
        object[key] = RawPath.lossy(path)
        if !RawPath.isUTF8(path) { object[key + "_bytes"] = Data(RawPath.bytes(path)).base64EncodedString() }
        return object
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
