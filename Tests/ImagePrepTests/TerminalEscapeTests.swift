import Foundation
import Testing
@testable import ImagePrep

/// Nothing imgprep prints for a person can drive the terminal: control characters (C0, DEL, C1) and
/// bytes that are not UTF-8, in file names, EXIF strings or messages, are printed as `ls -b` escapes.
@Suite struct TerminalEscapeTests {
    /// ESC ] 0 ; pwned BEL (set the window title), ESC [ 31 m (red), a C1 CSI (U+009B), a DEL.
    static let hostile = "N\u{1B}]0;pwned\u{07}\u{1B}[31mRED\u{9B}2J\u{7F}"

    /// A JPEG whose EXIF Make is `make` (ASCII, NUL-terminated, stored after IFD0).
    static func jpeg(make: String) throws -> [UInt8] {
        let value = Array(make.utf8) + [0]
        let offset = UInt32(8 + 2 + 12 + 4)   // header, count, one entry, next-IFD offset
        return try HostileFiles.jpeg(exif: HostileFiles.tiff([.init(tag: 0x010F, type: 2, count: UInt32(value.count), value: offset)],
                                                             tail: value))
    }

    /// The bytes a terminal must never receive from file contents or names.
    static func controlBytes(in text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var found = bytes.filter { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }
        if text.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) { found.append(0x9B) }
        return found
    }

    @Test func infoEscapesExifStrings() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("make.jpg")
        try Data(try Self.jpeg(make: Self.hostile)).write(to: path)
        let fields = try ImageInspector.inspect(try Self.jpeg(make: Self.hostile)).exifFields
        #expect(fields.first { $0.label == "Make" }?.value == Self.hostile, "the library keeps the value as it is; only printing escapes it")

        let run = try TestSupport.imgprep(["info", path.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.controlBytes(in: run.stdout).isEmpty, "\(Array(run.stdout.utf8))")
        #expect(run.stdout.contains(#"N\033]0;pwned\a\033[31mRED\302\2332J\177"#), "\(run.stdout)")

        // JSON escapes them its own way, and stays exact.
        let json = try TestSupport.imgprep(["info", "--json", path.path])
        #expect(Self.controlBytes(in: json.stdout).isEmpty, "\(json.stdout)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["exif"] as? [String: Any])?["Make"] as? String == Self.hostile)
    }

    @Test func fileNamesAreEscapedInErrorsWarningsAndLines() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "a\u{1B}[31mred\\\u{9B}.jpg"
        try Data("not a picture".utf8).write(to: dir.appendingPathComponent(name))
        let good = "g\u{1B}]0;t\u{07}.jpg"
        try Data(try Self.jpeg(make: "x")).write(to: dir.appendingPathComponent(good))

        let run = try TestSupport.imgprep(["convert", "-v", "-q", "80", "-o", "out", name, good], cwd: dir)
        #expect(run.status == 1)
        #expect(Self.controlBytes(in: run.stderr).isEmpty && Self.controlBytes(in: run.stdout).isEmpty,
                "stderr \(Array(run.stderr.utf8))\nstdout \(Array(run.stdout.utf8))")
        #expect(run.stderr.contains(#"imgprep: a\033[31mred\\\302\233.jpg: "#), "\(run.stderr)")
        #expect(run.stdout.contains(#"g\033]0;t\a.jpg -> out/g\033]0;t\a.jpg"#), "\(run.stdout)")

        // info and the usage errors too.
        let info = try TestSupport.imgprep(["info", name], cwd: dir)
        #expect(info.stderr.hasPrefix(#"imgprep: a\033[31mred\\\302\233.jpg: "#), "\(info.stderr)")
        let usage = try TestSupport.imgprep(["conv\u{1B}[2Jert"], cwd: dir)
        #expect(usage.status == 2 && Self.controlBytes(in: usage.stderr).isEmpty, "\(usage.stderr)")
    }

    @Test func bytesThatAreNotUTF8AreEscapedOneByOne() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A name made of raw bytes: "x", 0xFF, 0x1B, "y.jpg".
        let raw: [UInt8] = [0x78, 0xFF, 0x1B, 0x79] + Array(".jpg".utf8)
        let path = dir.path + "/" + RawPath.decode(raw)
        RawPath.withCString(path) { cPath in
            let fd = open(cPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(fd >= 0)
            close(fd)
        }
        let run = try TestSupport.run("bash", ["-c", "'\(TestSupport.binary)' info x*.jpg"], cwd: dir)
        #expect(run.stderr.hasPrefix(#"imgprep: x\377\033y.jpg: "#), "\(Array(run.stderr.utf8))")
    }
}
