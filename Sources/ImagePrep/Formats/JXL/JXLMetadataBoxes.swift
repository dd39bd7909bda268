/// A JPEG XL container's metadata boxes (`Exif`, `xml `, and `brob` boxes holding them), read here
/// rather than by libjxl: a `brob` box is decompressed with a cap that stops it as it grows (libjxl
/// would expand a bomb in full), and a box that is cut, damaged or over the cap is left out with a
/// warning while the picture is still read. The first readable box of each kind counts.
struct JXLMetadataBoxes {
    /// The first `Exif` box's payload as stored (its TIFF-header offset first), decompressed.
    var exifBox: [UInt8]?
    var xmp: [UInt8]?
    /// A `jbrd` box: the file holds what rebuilds the original JPEG byte for byte.
    var hasJPEGReconstruction = false
    var warnings: [String] = []

    init(_ file: [UInt8], limit: Int) {
        guard let boxes = JXLStructure.boxes(file) else { return }   // a bare codestream has no boxes
        for box in boxes {
            var type = box.type
            var payload = file[box.payload]
            let compressed = type == "brob"
            if compressed {
                guard payload.count >= 4 else { continue }
                type = String(decoding: payload.prefix(4).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
                payload = payload.dropFirst(4)
            }
            if type == "jbrd" { hasJPEGReconstruction = true }
            guard type == "Exif" && exifBox == nil || type == "xml " && xmp == nil else { continue }
            let name = type == "Exif" ? "Exif" : "XMP (xml)"
            guard !box.isCut else {
                warnings.append("the JPEG XL file's \(name) box is cut short and was left out")
                continue
            }
            let bytes: [UInt8]
            if compressed {
                switch BrotliStream.decompress(payload, limit: limit) {
                case .success(let decompressed): bytes = decompressed
                case .failure(.overLimit):
                    warnings.append("the JPEG XL file's compressed \(name) box expands to over \(limit >> 20) MB and was left out")
                    continue
                case .failure(.damaged):
                    warnings.append("the JPEG XL file's compressed \(name) box is damaged and was left out")
                    continue
                }
            } else {
                guard payload.count <= limit else {
                    warnings.append("the JPEG XL file's \(name) box is over \(limit >> 20) MB and was left out")
                    continue
                }
                bytes = Array(payload)
            }
            if type == "Exif" {
                exifBox = bytes
            } else if !bytes.isEmpty {
                xmp = bytes
            }
        }
    }
}
