import Foundation
import Testing

/// A format is one folder: outside `Sources/ImagePrep/Formats/<NAME>/` no code token (comments and
/// string literals aside) names a format as a camelCase word (`JPEGDecoder`, `isAVIF`, `cic_png_read`),
/// nor imports a format's C module; the registry's lines in `Formats/Formats.swift` are the exception.
/// Shared code reaches formats through `ImageFormatReader` and `ImageFormatWriter` (with its optional
/// capabilities) only.
@Suite struct FormatFolderTests {
    static let sources = ["Sources/ImagePrep", "Sources/imgprep"].map { TestSupport.packageRoot.appendingPathComponent($0) }

    static let scanned = Result { try violations() }

    @Test func sharedCodeNamesNoFormat() throws {
        let found = try Self.scanned.get()
        #expect(found.count == 0, "format names outside Formats/<NAME>/:\n\(found.map(\.text).joined(separator: "\n"))")
    }

    @Test func findsFormatNamesInCodeOnly() {
        let source = """
            import CHeif
            // JPEGDecoder in a comment, /* and a HEIF block */ comment
            let name = "a JPEG image \\(count) of \\(webpCount)"
            let other = #"raw "PNG" text"#
            let x = JPEGDecoder(); let isAVIF = true
            let jpegSettings = 1, libheif = 2, jpegxl = 3, magic = 4, Gifts = 5
            /* nested /* GIF */ still comment */ cic_png_read()
            let block = \"\"\"
                GIF in a multi-line string \\(HeifDecoder.version)
                \"\"\"
            """
        let found = Self.violations(in: source, path: "Sources/ImagePrep/Shared.swift")
        #expect(found.map(\.line) == [1, 3, 5, 6, 7, 9])
        #expect(found.map(\.tokens) == [["CHeif"], ["webpCount"], ["JPEGDecoder", "isAVIF"], ["jpegSettings"], ["cic_png_read"],
                                        ["HeifDecoder"]])
        #expect(found.first?.text == "Sources/ImagePrep/Shared.swift:1: CHeif")
        #expect(Self.violations(in: source, path: "Sources/ImagePrep/Formats/JPEG/Mine.swift").isEmpty)
        #expect(Self.violations(in: "        JPEGFormatReader(),\n", path: "Sources/ImagePrep/Formats/Formats.swift").isEmpty)
        #expect(Self.violations(in: "    let x = JPEGFormatReader()\n", path: "Sources/ImagePrep/Formats/Formats.swift").count == 1)
    }

    // MARK: - The check

    struct Violation {
        var path: String
        var line: Int
        var tokens: [String]
        var text: String { "\(path):\(line): \(tokens.joined(separator: " "))" }
    }

    /// Each spelling of each format's name, as a camelCase word may show it.
    static let names = ["JPEG", "Jpeg", "jpeg", "JPG", "Jpg", "jpg", "PNG", "Png", "png", "WebP", "WEBP", "Webp", "webp",
                        "GIF", "Gif", "gif", "HEIF", "Heif", "heif", "HEIC", "Heic", "heic", "AVIF", "Avif", "avif",
                        "JXL", "Jxl", "jxl"]
    static let stems = Set(names.map { $0.lowercased() })
    /// The format's own C modules (the JPEG and PNG parts of CImageCodecs show as `cic_jpeg_…`, `cic_png_…`).
    static let cModules: Set = ["CHeif", "CWebP", "CGif", "CPNG", "CJXL"]


    static func violations() throws -> [Violation] {
        var found: [Violation] = []
        for root in sources {
            let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") }.sorted()
            #expect(!files.isEmpty, "no Swift files under \(root.path)")
            for file in files {
                let path = String(root.appendingPathComponent(file).path.dropFirst(TestSupport.packageRoot.path.count + 1))
                found += violations(in: try String(contentsOfFile: root.appendingPathComponent(file).path, encoding: .utf8), path: path)
            }
        }
        return found
    }

    static func violations(in source: String, path: String) -> [Violation] {
        if path.range(of: #"^Sources/ImagePrep/Formats/[^/]+/"#, options: .regularExpression) != nil { return [] }
        let isRegistry = path == "Sources/ImagePrep/Formats/Formats.swift"
        let originals = source.split(separator: "\n", omittingEmptySubsequences: false)
        return codeOnly(source).split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            if isRegistry, originals[index].range(of: #"^\s*\w+Format(Reader|Writer)\(\),\s*$"#, options: .regularExpression) != nil {
                return nil
            }
            let tokens = identifiers(in: String(line)).filter(namesFormat)
            return tokens.isEmpty ? nil : Violation(path: path, line: index + 1, tokens: tokens)
        }
    }

    /// Whether `token` holds a format's name as a word: bounded by the token's ends, `_`, digits, or a
    /// change of case (`isAVIF`, `JPEGDecoder`, `jpegSettings`), not inside a longer word (`libheif`, `magic`).
    static func namesFormat(_ token: String) -> Bool {
        if cModules.contains(token) { return true }
        let lowered = token.lowercased()
        guard stems.contains(where: lowered.contains) else { return false }
        let characters = Array(token)
        for name in names {
            let word = Array(name)
            guard word.count <= characters.count else { continue }
            for start in 0...(characters.count - word.count) where Array(characters[start..<start + word.count]) == word {
                let before = start > 0 ? characters[start - 1] : nil
                let after = start + word.count < characters.count ? characters[start + word.count] : nil
                let startsWord = before.map { !$0.isLetter || (word[0].isUppercase && $0.isLowercase) } ?? true
                let endsWord = after.map { !$0.isLetter || $0.isUppercase } ?? true
                if startsWord && endsWord { return true }
            }
        }
        return false
    }

    static func identifiers(in line: String) -> [String] {
        var tokens: [String] = [], current = ""
        for character in line {
            if character == "_" || (character.isASCII && (character.isLetter || character.isNumber)) {
                current.append(character)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens.filter { $0.first?.isNumber != true }   // a literal such as 0x89 is no name
    }

    /// `source` with comments and string literals blanked (newlines kept, so lines still count) and
    /// the code inside string interpolations kept.
    static func codeOnly(_ source: String) -> String {
        var scanner = Scanner(Array(source.unicodeScalars))
        scanner.code(untilClosingParenthesis: false)
        return String(String.UnicodeScalarView(scanner.output))
    }

    struct Scanner {
        let input: [Unicode.Scalar]
        var at = 0
        var output: [Unicode.Scalar] = []

        init(_ input: [Unicode.Scalar]) { self.input = input }

        func starts(_ text: String, at offset: Int) -> Bool {
            var i = offset
            for scalar in text.unicodeScalars {
                guard i < input.count, input[i] == scalar else { return false }
                i += 1
            }
            return true
        }

        mutating func blank(_ count: Int) {
            for _ in 0..<count where at < input.count {
                output.append(input[at] == "\n" ? "\n" : " ")
                at += 1
            }
        }

        mutating func keep() {
            output.append(input[at])
            at += 1
        }

        /// Code, up to the parenthesis that closes an interpolation when `untilClosingParenthesis`.
        mutating func code(untilClosingParenthesis: Bool) {
            var depth = 0
            while at < input.count {
                if starts("//", at: at) {
                    while at < input.count, input[at] != "\n" { blank(1) }
                } else if starts("/*", at: at) {
                    blockComment()
                } else if input[at] == "\"" || (input[at] == "#" && rawStringStarts()) {
                    string()
                } else if input[at] == "(" {
                    depth += 1
                    keep()
                } else if input[at] == ")" {
                    if depth == 0 && untilClosingParenthesis { return }
                    depth -= 1
                    keep()
                } else {
                    keep()
                }
            }
        }

        func rawStringStarts() -> Bool {
            var i = at
            while i < input.count, input[i] == "#" { i += 1 }
            return i < input.count && input[i] == "\""
        }

        mutating func blockComment() {
            var depth = 0
            repeat {
                if starts("/*", at: at) { depth += 1; blank(2) } else if starts("*/", at: at) { depth -= 1; blank(2) } else { blank(1) }
            } while depth > 0 && at < input.count
        }

        /// A string literal, plain, multi-line or raw, blanked except for the code its interpolations hold.
        mutating func string() {
            var hashes = 0
            while input[at] == "#" { hashes += 1; blank(1) }
            let quote = starts("\"\"\"", at: at) ? "\"\"\"" : "\""
            blank(quote.count)
            let close = quote + String(repeating: "#", count: hashes)
            let interpolation = "\\" + String(repeating: "#", count: hashes) + "("
            while at < input.count {
                if starts(interpolation, at: at) {
                    blank(interpolation.unicodeScalars.count)
                    code(untilClosingParenthesis: true)
                    blank(1)
                } else if hashes == 0 && input[at] == "\\" {
                    blank(2)
                } else if starts(close, at: at) {
                    blank(close.unicodeScalars.count)
                    return
                } else {
                    blank(1)
                }
            }
        }
    }
}
