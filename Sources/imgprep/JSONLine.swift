import Foundation
import ImagePrep

/// One JSON object per line on standard output, always valid UTF-8. File names are bytes, not text:
/// a name that is not UTF-8 is written lossily (U+FFFD for each byte that is not) and, beside it, exactly
/// in base64 under the same key with `_bytes` added (`input_bytes`), so a script can still find the file.
enum JSONLine {
    static func print(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: utf8(object), options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// `object` with `path` under `key`, plus `key_bytes` when the name is not UTF-8.
    static func naming(_ path: String, as key: String, in object: [String: Any]) -> [String: Any] {
        var object = object
        object[key] = RawPath.lossy(path)
        if !RawPath.isUTF8(path) { object[key + "_bytes"] = Data(RawPath.bytes(path)).base64EncodedString() }
        return object
    }

    /// Every string made valid UTF-8 (names also appear inside error messages).
    private static func utf8(_ value: Any) -> Any {
        switch value {
        case let text as String: RawPath.lossy(text)
        case let list as [Any]: list.map(utf8)
        case let dictionary as [String: Any]: dictionary.mapValues(utf8)
        default: value
        }
    }
}
