import Testing
@testable import ImagePrep

struct ImageCaptionTests {
    static func xmp(_ description: String) -> [UInt8] {
        Array("""
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
         <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Not the caption</rdf:li></rdf:Alt></dc:title>
          \(description)
         </rdf:Description>
        </rdf:RDF></x:xmpmeta>
        <?xpacket end="w"?>
        """.utf8)
    }

    static func alt(_ items: [(lang: String, text: String)]) -> String {
        "<dc:description><rdf:Alt>" + items.map { "<rdf:li xml:lang=\"\($0.lang)\">\($0.text)</rdf:li>" }.joined() + "</rdf:Alt></dc:description>"
    }

    /// Photoshop resources holding one IIM record with Caption-Abstract (2:120) = `caption`.
    static func iptc(_ caption: [UInt8]) -> [UInt8] {
        let byline: [UInt8] = [0x1C, 2, 80, 0, 3] + Array("Ann".utf8)
        let dataset: [UInt8] = [0x1C, 2, 120, UInt8(caption.count >> 8), UInt8(caption.count & 0xFF)] + caption
        return IPTC.resources(wrappingIIM: byline + dataset)
    }

    /// A little-endian TIFF block whose IFD0 has ImageDescription = `text` (NUL-terminated ASCII).
    static func exif(_ text: [UInt8]) -> [UInt8] {
        let value = text + [0]
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 1, 0]
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24 & 255)] }
        tiff += [0x0E, 0x01, 2, 0] + le32(value.count) + (value.count <= 4 ? value + [UInt8](repeating: 0, count: 4 - value.count) : le32(26))
        tiff += le32(0)
        return value.count <= 4 ? tiff : tiff + value
    }

    @Test("XMP dc:description, then IPTC Caption-Abstract, then EXIF ImageDescription; empty when none")
    func order() {
        let xmp = Self.xmp(Self.alt([("x-default", "From XMP")])), iptc = Self.iptc(Array("From IPTC".utf8))
        let exif = Self.exif(Array("From EXIF".utf8))
        #expect(ImageCaption.text(in: ImageMetadata(exif: exif, xmp: xmp, iptc: iptc)) == "From XMP")
        #expect(ImageCaption.text(in: ImageMetadata(exif: exif, iptc: iptc)) == "From IPTC")
        #expect(ImageCaption.text(in: ImageMetadata(exif: exif, xmp: Self.xmp(""))) == "From EXIF")
        #expect(ImageCaption.text(in: ImageMetadata(exif: Self.exif(Array("Hi".utf8)))) == "Hi")   // inline value
        #expect(ImageCaption.text(in: ImageMetadata()) == "")
    }

    @Test("XMP: the x-default item first, else the first; the attribute form; entities and CDATA decoded")
    func xmpForms() {
        let german = Self.xmp(Self.alt([("de", "Ein Hund"), ("x-default", "A dog")]))
        #expect(ImageCaption.text(in: ImageMetadata(xmp: german)) == "A dog")
        let onlyGerman = Self.xmp(Self.alt([("de", "Ein Hund"), ("fr", "Un chien")]))
        #expect(ImageCaption.text(in: ImageMetadata(xmp: onlyGerman)) == "Ein Hund")
        let attribute = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:d="http://purl.org/dc/elements/1.1/" d:description="Fish &amp; chips &#x263A;"/></rdf:RDF></x:xmpmeta>
        """.utf8)
        #expect(ImageCaption.text(in: ImageMetadata(xmp: attribute)) == "Fish & chips \u{263A}")
        let cdata = Self.xmp(Self.alt([("x-default", "<![CDATA[<b>bold</b> & more]]>")]))
        #expect(ImageCaption.text(in: ImageMetadata(xmp: cdata)) == "<b>bold</b> & more")
    }

    @Test("Hostile text: markup stays text (escaping is the markup's job), control characters go, invalid UTF-8 is made valid")
    func hostile() throws {
        let script = Self.xmp(Self.alt([("x-default", "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;")]))
        #expect(ImageCaption.text(in: ImageMetadata(xmp: script)) == "\"><script>alert(1)</script>")
        let iptcScript = Self.iptc(Array("\"><img src=x onerror=alert(1)>".utf8))
        #expect(ImageCaption.text(in: ImageMetadata(iptc: iptcScript)) == "\"><img src=x onerror=alert(1)>")

        let controls = Self.iptc(Array("  a\u{0}b\u{1B}[31mc\td\r\ne\u{7F}\u{85}f\u{202E}g\u{7}  ".utf8))
        #expect(ImageCaption.text(in: ImageMetadata(iptc: controls)) == "ab[31mc d e fg")
        let xmpControls = Self.xmp(Self.alt([("x-default", "one&#x1;two&#10;three")]))
        #expect(ImageCaption.text(in: ImageMetadata(xmp: xmpControls)) == "onetwo three")

        // Latin-1 IPTC and EXIF (invalid as UTF-8) read as Latin-1; invalid bytes in XMP become U+FFFD.
        #expect(ImageCaption.text(in: ImageMetadata(iptc: Self.iptc([0x63, 0x61, 0x66, 0xE9]))) == "caf\u{E9}")
        #expect(ImageCaption.text(in: ImageMetadata(exif: Self.exif([0x4E, 0xE4, 0x68, 0x65]))) == "N\u{E4}he")
        var broken = Self.xmp(Self.alt([("x-default", "bad XX byte")]))
        let at = try #require(broken.firstIndex(of: UInt8(ascii: "X")))
        broken[at] = 0xFF
        broken[at + 1] = 0xC0
        let text = ImageCaption.text(in: ImageMetadata(xmp: broken))
        #expect(text.hasPrefix("bad ") && text.hasSuffix(" byte") && text.contains("\u{FFFD}"))
        #expect(String(validating: Array(text.utf8), as: UTF8.self) == text)
    }

    @Test("A caption empty once cleaned, or a damaged block, gives way to the next; nothing traps")
    func fallThrough() {
        let blank = Self.xmp(Self.alt([("x-default", "  &#x1;\u{7} ")]))
        #expect(ImageCaption.text(in: ImageMetadata(xmp: blank, iptc: Self.iptc(Array("IPTC".utf8)))) == "IPTC")
        let unclosed = Array("<x:xmpmeta><dc:description>Never closed".utf8)
        #expect(ImageCaption.text(in: ImageMetadata(xmp: unclosed, iptc: Self.iptc(Array("IPTC".utf8)))) == "IPTC")
        // IPTC whose dataset claims more bytes than there are, then EXIF whose value points past the end.
        let lyingIIM = IPTC.resources(wrappingIIM: [0x1C, 2, 120, 0xFF, 0xFF, 0x41])
        var lyingEXIF = Self.exif(Array("Long enough".utf8))
        lyingEXIF[18] = 0xF0   // the value's offset
        #expect(ImageCaption.text(in: ImageMetadata(exif: Self.exif(Array("EXIF".utf8)), iptc: lyingIIM)) == "EXIF")
        #expect(ImageCaption.text(in: ImageMetadata(exif: lyingEXIF, iptc: lyingIIM)) == "")
        #expect(ImageCaption.text(in: ImageMetadata(exif: [0x49, 0x49], xmp: [0xFF, 0xFE], iptc: [0x38])) == "")
        // An extended-length IIM dataset (length in the following 4 bytes).
        let long = Array(String(repeating: "x", count: 40000).utf8)
        let extended = IPTC.resources(wrappingIIM: [0x1C, 2, 120, 0x80, 4, 0, 0, 0x9C, 0x40] + long)
        #expect(ImageCaption.text(in: ImageMetadata(iptc: extended)).count == 40000)
    }
}
