import Foundation
import Testing
@testable import ImagePrep

/// The manifest document: its bytes, reading it back strictly, and joining shards.
@Suite struct ManifestTests {
    static func variants(_ stem: String, formats: [String] = ["avif", "webp", "jpeg"], widths: [Int] = [480, 960, 1920]) -> [ManifestVariant] {
        formats.flatMap { format in
            widths.map { ManifestVariant(format: format, width: $0, height: $0 * 3 / 4, bytes: $0 * 10, path: "\(stem)-\($0).\(format)") }
        }
    }

    static func entry(_ stem: String, alt: String = "a photo", placeholder: Placeholder? = Placeholder(kind: .thumbhash, value: "1QcSHQRnh493V4dIh4eXh1h4kJUI"))
        -> ManifestEntry {
        ManifestEntry(width: 1920, height: 1440, alt: alt, color: "#a1b2c3", placeholder: placeholder,
                      variants: variants(stem), sizes: "100vw", baseURL: nil)
    }

    static let sample: [ManifestSource: ManifestEntry] = [
        "photos/b.heic": entry("photos/b"), "a.jpg": entry("a", alt: "", placeholder: nil),
        "ünï/çödé.png": entry("ünï/çödé", placeholder: Placeholder(kind: .lqip, value: "data:image/webp;base64,UklGRg==")),
        "z z.webp": entry("z z", alt: "tab\there \"quoted\" \\ back", placeholder: Placeholder(kind: .blurhash, value: "LEHV6nWB2yk8pyo0adR*.7kCMdnj")),
    ]

    @Test func bytesAreTheSameWhateverTheInsertionOrder() throws {
        var forward = Manifest(), backward = Manifest()
        let keys = Self.sample.keys.sorted()
        for key in keys { forward.images[key] = Self.sample[key] }
        for key in keys.reversed() { backward.images[key] = Self.sample[key] }
        // A dictionary rebuilt with another capacity iterates in another order.
        var grown = Manifest(images: Dictionary(minimumCapacity: 1000))
        for key in keys.shuffled() { grown.images[key] = Self.sample[key] }
        let bytes = forward.encoded()
        #expect(bytes == backward.encoded())
        #expect(bytes == grown.encoded())
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(bytes.dropLast().last != UInt8(ascii: "\n"))
    }

    @Test func keysAreSortedAtEveryLevelInTheIssuesShape() throws {
        let text = String(decoding: Manifest(images: ["a.jpg": Self.sample["photos/b.heic"]!]).encoded(), as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let images = try #require(object["images"] as? [String: Any])
        let entry = try #require(images["a.jpg"] as? [String: Any])
        #expect(Set(entry.keys) == ["alt", "color", "height", "html", "placeholder", "variants", "width"])
        #expect(entry["placeholder"] as? [String: String] == ["thumbhash": "1QcSHQRnh493V4dIh4eXh1h4kJUI"])
        let variant = try #require((entry["variants"] as? [[String: Any]])?.first)
        #expect(Set(variant.keys) == ["bytes", "format", "height", "path", "width"])
        // Each object's keys appear in sorted order in the text.
        let order = ["\"alt\"", "\"color\"", "\"height\"", "\"html\"", "\"placeholder\"", "\"variants\"", "\"width\""].map { text.range(of: $0)!.lowerBound }
        #expect(order == order.sorted())
        let variantOrder = ["\"bytes\"", "\"format\"", "\"height\": 360", "\"path\"", "\"width\": 480"].map { text.range(of: $0)!.lowerBound }
        #expect(variantOrder == variantOrder.sorted())
        // No placeholder is null, not a missing key.
        let none = String(decoding: Manifest(images: ["a.jpg": Self.sample["a.jpg"]!]).encoded(), as: UTF8.self)
        #expect(none.contains("\"placeholder\": null"))
    }

    @Test func sourcesAreSortedByTheirBytes() throws {
        let text = String(decoding: Manifest(images: Self.sample).encoded(), as: UTF8.self)
        let positions = ["\"a.jpg\": {", "\"photos/b.heic\": {", "\"z z.webp\": {", "\"ünï/çödé.png\": {"].compactMap { text.range(of: $0)?.lowerBound }
        #expect(positions.count == 4)
        #expect(positions == positions.sorted())
    }

    @Test func decodeReadsBackWhatEncodedWrote() throws {
        let manifest = Manifest(images: Self.sample)
        let decoded = try Manifest.decode(manifest.encoded())
        #expect(decoded == manifest)
        #expect(decoded.encoded() == manifest.encoded())
        #expect(try Manifest.decode(Manifest().encoded()) == Manifest())
        // Another writer's spacing and escapes are fine as long as the document is the same.
        let compact = ##"{"images":{"a\u002ejpg":{"width":2,"height":1,"alt":"\u00e9\ud83d\ude00","color":"#00ff00","placeholder":null,"html":"<picture></picture>","variants":[{"format":"jpeg","width":2,"height":1,"bytes":0,"path":"a-2.jpg"}]}}}"##
        let read = try Manifest.decode(Array(compact.utf8))
        #expect(read.images["a.jpg"]?.alt == "é😀")
    }

    /// Each must be refused with one ImagePrepError that says where.
    @Test(arguments: [
        ("", "invalid JSON at byte 0"),
        ("[]", "the document: expected an object"),
        (#"{"images": {}, "extra": 1}"#, "unknown key \"extra\""),
        (#"{"images": {}} x"#, "unexpected bytes after the document"),
        (#"{"images": {}, "images": {}}"#, "appears twice"),
        (#"{"images": 3}"#, "images: expected an object"),
        (String(repeating: "[", count: 100_000), "nested too deeply"),
        (#"{"images": {"a": {"width": 1.5}}}"#, "expected a whole number"),
        (#"{"images": {"a": {"width": 99999999999999999999999}}}"#, "out of range"),
        (#"{"images": {"a": "\ud800"}}"#, "lone surrogate"),
        (#"{"images": {"a": "\x"}}"#, "unknown escape"),
        (#"{"images": {"a": "unterminated"#, "not closed"),
        (#"{"images": {"a": true}}"#, "images[\"a\"]: expected an object"),
        (#"{"images": {"a": tru}}"#, "expected true"),
    ] as [(String, String)])
    func malformedDocumentsAreRefused(document: String, reason: String) {
        expectRefusal(Array(document.utf8), reason)
    }

    @Test func entriesOfTheWrongShapeAreRefused() throws {
        let good = String(decoding: Manifest(images: ["a.jpg": Self.sample["photos/b.heic"]!]).encoded(), as: UTF8.self)
        let cases: [(String, String, String)] = [
            ("\"width\": 1920", "\"width\": 0", "images[\"a.jpg\"].width"),
            ("\"width\": 1920", "\"width\": -5", "images[\"a.jpg\"].width"),
            ("\"height\": 1440", "\"height\": \"1440\"", "images[\"a.jpg\"].height"),
            ("\"color\": \"#a1b2c3\"", "\"color\": \"red\"", "expected #rrggbb"),
            ("\"placeholder\": {\n        \"thumbhash\"", "\"placeholder\": {\n        \"sha256\"", ".placeholder"),
            ("\"placeholder\": {\n        \"thumbhash\"", "\"placeholder\": {\n        \"none\"", ".placeholder"),
            ("\"format\": \"avif\"", "\"format\": \"exe\"", "unknown format \"exe\""),
            ("\"bytes\": 4800", "\"bytes\": -1", "variants[0].bytes"),
            ("\"bytes\": 4800", "\"bytes\": 4800, \"animated\": false", "variants[0].animated"),
            ("\"bytes\": 4800", "\"bytes\": 4800, \"hdr\": 1", "variants[0].hdr"),
            ("\"alt\": \"a photo\",", "", "no \"alt\""),
            ("\"alt\": \"a photo\",", "\"alt\": \"a photo\", \"onload\": \"x\",", "unknown key \"onload\""),
        ]
        for (from, to, reason) in cases {
            #expect(good.contains(from), "\(from)")
            expectRefusal(Array(good.replacingOccurrences(of: from, with: to).utf8), reason)
        }
        expectRefusal(Array(##"{"images": {"a": {"alt": "", "color": "#000000", "height": 1, "html": "", "placeholder": null, "variants": [], "width": 1}}}"##.utf8), "at least one variant")
        // Bytes that are not UTF-8 inside a string (a file name's are written as escapes).
        expectRefusal(Array(#"{"images": {""#.utf8) + [0xFF] + Array(#"": {}}}"#.utf8), "not UTF-8")
    }

    /// Two spellings of one name are two files on Linux, so two sources; a name that is not UTF-8 is
    /// written with Python's surrogateescape (`\udcff`), never as private-use characters, and read back
    /// as the same bytes.
    @Test func namesAreBytesNFCAndNFDAreTwoSourcesAndBytesThatAreNotUTF8RoundTrip() throws {
        let one = Self.sample["a.jpg"]!
        let raw = RawPath.decode([0x66, 0xFF, 0x2F, 0x78, 0xE9, 0x2E, 0x6A, 0x70, 0x67])   // "f\xFF/x\xE9.jpg"
        var variant = one.variants[0]
        variant.path = raw
        let odd = ManifestEntry(width: one.width, height: one.height, alt: one.alt, color: one.color, placeholder: nil,
                                variants: [variant], sizes: "100vw", baseURL: nil)
        let manifest = Manifest(images: [ManifestSource("\u{E9}.jpg"): one, ManifestSource("e\u{301}.jpg"): one, ManifestSource(raw): odd])
        #expect(manifest.images.count == 3)
        let bytes = manifest.encoded()
        #expect(!bytes.indices.dropLast().contains { bytes[$0] == 0xF4 && bytes[$0 + 1] == 0x8F }, "private-use escapes written")
        let text = try #require(String(validating: bytes, as: UTF8.self))
        #expect(text.contains(#""f\udcff/x\udce9.jpg""#), "\(text)")
        #expect(odd.html.contains("f%FF/x%E9.jpg"), "\(odd.html)")
        let read = try Manifest.decode(bytes)
        #expect(read == manifest)
        #expect(RawPath.bytes(try #require(read.images[ManifestSource(raw)]).variants[0].path) == [0x66, 0xFF, 0x2F, 0x78, 0xE9, 0x2E, 0x6A, 0x70, 0x67])
        #expect(read.images.keys.sorted().map { RawPath.bytes($0.path) } == [[0x65, 0xCC, 0x81, 0x2E, 0x6A, 0x70, 0x67], [0x66, 0xFF, 0x2F, 0x78, 0xE9, 0x2E, 0x6A, 0x70, 0x67], [0xC3, 0xA9, 0x2E, 0x6A, 0x70, 0x67]])
        // A lone surrogate that is no byte of a name is still refused.
        expectRefusal(Array(#"{"images": {"\udc41": {}}}"#.utf8), "lone surrogate")
    }

    private func expectRefusal(_ bytes: [UInt8], _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Manifest.decode(bytes)
            Issue.record("accepted: \(String(decoding: bytes.prefix(200), as: UTF8.self))", sourceLocation: sourceLocation)
        } catch let error as ImagePrepError {
            #expect(error.kind == .corrupt, sourceLocation: sourceLocation)
            #expect(error.description.contains(reason), "\(error.description)", sourceLocation: sourceLocation)
            #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
        } catch {
            Issue.record("not an ImagePrepError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func mergingShardsGivesTheSingleRunsManifest() throws {
        let keys = Self.sample.keys.sorted()
        let whole = Manifest(images: Self.sample)
        let first = Manifest(images: Self.sample.filter { keys.firstIndex(of: $0.key)! % 2 == 0 })
        let second = Manifest(images: Self.sample.filter { keys.firstIndex(of: $0.key)! % 2 == 1 })
        #expect(!first.images.isEmpty && !second.images.isEmpty)
        #expect(try Manifest.merge([first, second]).encoded() == whole.encoded())
        #expect(try Manifest.merge([second, first]) == whole)
        // The same entry in two shards (an input given twice) is fine.
        #expect(try Manifest.merge([first, whole, second]) == whole)
        #expect(try Manifest.merge([]) == Manifest())
    }

    @Test func mergingDifferentEntriesForOneSourceIsRefused() throws {
        var other = Self.sample["a.jpg"]!
        other.variants[0].bytes += 1
        do {
            _ = try Manifest.merge(named: [("one.json", Manifest(images: Self.sample)), ("two.json", Manifest(images: ["a.jpg": other]))])
            Issue.record("merged")
        } catch let error as ImagePrepError {
            #expect(error.kind == .output)
            #expect(error.description.contains("\"a.jpg\" has different entries in one.json and two.json"), "\(error)")
        }
        #expect(throws: ImagePrepError.self) { try Manifest.merge([Manifest(images: ["a.jpg": other]), Manifest(images: Self.sample)]) }
    }
}
