import Testing
@testable import ImagePrep

private func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
    let size = 16 + 4 * compatible.count
    return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
        + compatible.flatMap { Array($0.utf8) } + [0, 0, 0, 8] + Array("mdat".utf8)
}

@Suite struct FormatSnifferTests {
    @Test func heifBrandsMajorOrCompatible() throws {
        #expect(try FormatSniffer.sniff(ftyp("heic", ["mif1", "heic"])).get() == .heif(majorBrand: "heic", compatibleBrands: ["mif1", "heic"]))
        #expect(try FormatSniffer.sniff(ftyp("avis", ["avif", "msf1"])).get() == .heif(majorBrand: "avis", compatibleBrands: ["avif", "msf1"]))
        // Garbage major brand, a real one among the compatible: still HEIF (libheif decides).
        #expect(try FormatSniffer.sniff(ftyp("    ", ["mif1"])).get() == .heif(majorBrand: "    ", compatibleBrands: ["mif1"]))
    }

    @Test func magicBytes() throws {
        #expect(try FormatSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]).get() == .jpeg)
        #expect(try FormatSniffer.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]).get() == .png)
        #expect(try FormatSniffer.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)).get() == .webp)
        #expect(try FormatSniffer.sniff(Array("GIF89a....".utf8)).get() == .gif)
    }

    @Test(arguments: [
        (ftyp("qt  ", ["qt  "]), "(looks like a QuickTime movie, brand 'qt  ')"),
        (ftyp("isom", ["isom", "mp41"]), "MP4"),
        (Array("RIFF\u{24}\u{0}\u{0}\u{0}WAVEfmt ".utf8), "RIFF file"),
        (Array("<!DOCTYPE html><html>".utf8), "HTML"),
        (Array("II*\u{0}\u{8}\u{0}\u{0}\u{0}".utf8), "TIFF"),
        ([UInt8](), "empty"),
        ([0x00, 0x01, 0xFE, 0x80, 0x22], "unrecognised"),
    ])
    func explainsWhatOtherFilesLookLike(bytes: [UInt8], phrase: String) {
        guard case .failure(let error) = FormatSniffer.sniff(bytes) else {
            Issue.record("sniffed as an image")
            return
        }
        #expect(error.kind == .notAnImage)
        #expect(error.description.contains(phrase), "\(error.description)")
    }

    @Test func compactMiniFormatIsNamed() {
        guard case .failure(let error) = FormatSniffer.sniff(ftyp("mif3", [])) else {
            Issue.record("sniffed as an image")
            return
        }
        #expect(error.kind == .unsupported)
        #expect(error.description.contains("mif3"))
    }
}
