/// What a file is, judged by its first bytes and never by its name.
public enum SniffedFormat: Sendable, Equatable {
    /// An ISO-BMFF still-image container libheif reads (HEIC, HEIF, AVIF, and their sequence brands).
    case heif(majorBrand: String, compatibleBrands: [String])
    case jpeg
    case png
    /// RIFF with form type WEBP: lossy (VP8), lossless (VP8L) or extended (VP8X: alpha, metadata, animation).
    case webp
    /// GIF87a or GIF89a: a still picture or an animation.
    case gif
    /// JPEG XL: a bare codestream (FF 0A) or the ISO-BMFF container (a `JXL ` signature box).
    case jxl

    /// How messages name it: "a HEIF image", "a JPEG image".
    public var name: String { reader.name(of: self) }

    /// Everything imgprep knows about the format.
    public var reader: any ImageFormatReader { Formats.reader(for: self) }
}

public enum FormatSniffer {
    /// Identifies `bytes` (the whole file or at least its first few hundred bytes) or explains what
    /// the file looks like instead.
    public static func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError> {
        if bytes.isEmpty { return .failure(notAnImage("the file is empty")) }
        for reader in Formats.readers {
            if let sniffed = reader.sniff(bytes) { return sniffed }
        }
        if let ftyp = FileTypeBox(bytes) { return .failure(notAnImage(ftyp.videoDescription, brand: ftyp.major)) }
        return .failure(notAnImage(describe(bytes)))
    }

    private static func notAnImage(_ looksLike: String, brand: String? = nil) -> ImagePrepError {
        let brandNote = brand.map { ", brand '\($0)'" } ?? ""
        return ImagePrepError(.notAnImage, "not an image imgprep reads (\(looksLike)\(brandNote))")
    }

    /// A short guess at what non-image bytes are, for the error message.
    static func describe(_ bytes: [UInt8]) -> String {
        func starts(_ s: String, at offset: Int = 0) -> Bool {
            let m = Array(s.utf8)
            return bytes.count >= offset + m.count && Array(bytes[offset..<offset + m.count]) == m
        }
        if bytes.count >= 8, starts("moov", at: 4) || starts("mdat", at: 4) || starts("wide", at: 4) || starts("free", at: 4) {
            return "looks like a QuickTime movie"
        }
        if starts("RIFF") { return "looks like a RIFF file (WAV or AVI), not WebP" }
        if starts("II*\0") || starts("MM\0*") { return "looks like a TIFF image" }
        if starts("BM") && bytes.count > 14 { return "looks like a BMP image" }
        if starts("%PDF") { return "looks like a PDF document" }
        if starts("PK\u{3}\u{4}") { return "looks like a ZIP archive" }
        if bytes.starts(with: [0x1F, 0x8B]) { return "looks like gzip data" }
        if bytes.starts(with: [0xFF, 0xD8]) { return "looks like a damaged JPEG: no marker after SOI" }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        let trimmed = head.drop(while: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" })
        if trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") || head.contains("<html") {
            return "looks like an HTML page, perhaps a failed download"
        }
        if trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<svg") { return "looks like XML or SVG text" }
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") { return "looks like JSON text" }
        let printable = bytes.prefix(512).filter { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if printable.count == min(bytes.count, 512) { return "looks like plain text" }
        return "unrecognised data"
    }
}

/// The leading `ftyp` box, read just far enough to classify the file.
struct FileTypeBox {
    var major: String
    var compatible: [String]

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 16, fourCC(bytes, 4) == "ftyp" else { return nil }
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(max(declared, 16), bytes.count, 4096)
        major = fourCC(bytes, 8)
        compatible = stride(from: 16, to: end - 3, by: 4).map { fourCC(bytes, $0) }
    }

    /// ISO-BMFF files that are not HEIF are almost always movies or audio.
    var videoDescription: String {
        switch major {
        case "qt  ": return "looks like a QuickTime movie"
        case "M4A ", "M4B ", "M4P ": return "looks like an MPEG-4 audio file"
        case "crx ": return "looks like a Canon CR3 raw file"
        case "3gp4", "3gp5", "3gp6", "3g2a": return "looks like a 3GPP movie"
        default: return "looks like an MP4/ISO media file, not a HEIF image"
        }
    }
}

private func fourCC(_ bytes: [UInt8], _ offset: Int) -> String {
    guard offset + 4 <= bytes.count else { return "" }
    return String(decoding: bytes[offset..<offset + 4].map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
}
