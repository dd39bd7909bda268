import Foundation

/// File names on Linux are bytes, not text. Paths travel through imgprep as Strings in which every byte
/// that is not valid UTF-8 is kept as a private-use scalar (U+10FF80 ... U+10FFFF, one per byte), and
/// they turn back into exactly the original bytes whenever they reach the file system. Foundation's
/// path APIs would replace such bytes with U+FFFD, so file access goes through the calls here.
public enum RawPath {
    private static let escapeBase: UInt32 = 0x10FF00

    /// A path from the bytes the system gave (argv, readdir, a list on stdin).
    public static func decode<Bytes: Collection>(_ raw: Bytes) -> String where Bytes.Element == UInt8 {
        let bytes = Array(raw)
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            if let (scalar, length) = scalar(in: bytes, at: i) {
                scalars.append(scalar)
                i += length
            } else {
                scalars.append(Unicode.Scalar(escapeBase + UInt32(lead))!)  // in range: 0x10FF80...0x10FFFF
                i += 1
            }
        }
        return String(scalars)
    }

    /// One well-formed UTF-8 sequence at `i`, or nil (escaped scalars are never produced from input).
    private static func scalar(in bytes: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[i]
        let (length, minimum): (Int, UInt32) = switch lead {
        case 0x00...0x7F: (1, 0)
        case 0xC0...0xDF: (2, 0x80)
        case 0xE0...0xEF: (3, 0x800)
        case 0xF0...0xF7: (4, 0x10000)
        default: (0, 0)
        }
        guard length > 0, i + length <= bytes.count else { return nil }
        var value = length == 1 ? UInt32(lead) : UInt32(lead) & (0x7F >> UInt32(length))
        for k in 1..<length {
            guard bytes[i + k] & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(bytes[i + k] & 0x3F)
        }
        guard value >= minimum, value < escapeBase + 0x80, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    /// Whether the path's bytes are valid UTF-8 (no byte had to be escaped).
    public static func isUTF8(_ path: String) -> Bool {
        !path.unicodeScalars.contains(where: isEscape)
    }

    /// The path as text for a format that must be valid UTF-8 (JSON): each byte that is not UTF-8 becomes
    /// U+FFFD, so the result reads right but may not name the file; `bytes` has the exact name.
    public static func lossy(_ path: String) -> String {
        guard !isUTF8(path) else { return path }
        return String(String.UnicodeScalarView(path.unicodeScalars.map { isEscape($0) ? "\u{FFFD}" : $0 }))
    }

    private static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= escapeBase + 0x80 && scalar.value <= escapeBase + 0xFF
    }

    /// The byte an escape scalar stands for, or nil for any other scalar.
    static func escapedByte(_ scalar: Unicode.Scalar) -> UInt8? {
        isEscape(scalar) ? UInt8(scalar.value - escapeBase) : nil
    }

    /// The escape scalar for a byte that is not UTF-8 on its own (0x80 and up), or nil.
    static func escape(_ byte: UInt8) -> Unicode.Scalar? {
        byte >= 0x80 ? Unicode.Scalar(escapeBase + UInt32(byte)) : nil
    }

    /// The path's bytes for the file system.
    public static func bytes(_ path: String) -> [UInt8] {
        // Escapes (U+10FF80...U+10FFFF) start with the byte F4 in UTF-8; without one the text is the bytes.
        if !path.utf8.contains(0xF4) { return Array(path.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if scalar.value >= escapeBase + 0x80 && scalar.value <= escapeBase + 0xFF {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out += Array(String(scalar).utf8)
            }
        }
        return out
    }

    /// Runs `body` with the path as a NUL-terminated C string of its original bytes.
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        let terminated = (bytes(path) + [0]).map { CChar(bitPattern: $0) }
        return try terminated.withUnsafeBufferPointer { try body($0.baseAddress!) }  // never empty: the NUL
    }

    /// stat(2) of the path, or nil when it does not exist or cannot be reached.
    public static func status(_ path: String) -> stat? {
        var info = stat()
        return withCString(path) { stat($0, &info) } == 0 ? info : nil
    }

    public static func isDirectory(_ path: String) -> Bool {
        status(path).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
    }

    /// The names in a directory (not `.` and `..`), or nil when it cannot be listed.
    public static func names(in directory: String) -> [String]? {
        guard let dir = withCString(directory, { opendir($0) }) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(decode(name)) }
        }
        return names
    }

    /// realpath(3), or nil when the path does not exist.
    public static func resolved(_ path: String) -> String? {
        guard let resolved = withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return decode(Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved))))
    }

    /// The directory part and the last component of a path, like dirname(1) and basename(1) but with ""
    /// for a bare name's directory: `a/b.jpg` → (`a`, `b.jpg`), `b.jpg` → (``, `b.jpg`), `/x` → (`/`, `x`),
    /// `a//b/` → (`a`, `b`). Foundation's NSString path calls trap on some one-letter paths.
    public static func split(_ path: String) -> (directory: String, name: String) {
        var scalars = Substring(path).unicodeScalars
        while scalars.count > 1, scalars.last == "/" { scalars.removeLast() }
        guard let slash = scalars.lastIndex(of: "/") else { return ("", String(scalars)) }
        let name = String(scalars[scalars.index(after: slash)...])
        var directory = scalars[..<slash]
        while directory.count > 1, directory.last == "/" { directory.removeLast() }
        return (directory.isEmpty ? "/" : String(directory), name)
    }

    /// mkdir -p.
    public static func createDirectories(_ path: String) throws {
        if path.isEmpty || isDirectory(path) { return }
        let parent = split(path).directory
        if !parent.isEmpty && parent != path { try createDirectories(parent) }
        if withCString(path, { mkdir($0, 0o777) }) != 0 && errno != EEXIST {
            throw ImagePrepError(.io, "cannot create the directory \(path): \(String(cString: strerror(errno)))")
        }
    }
}
