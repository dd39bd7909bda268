import CImageCodecs

/// What a PNG's chunks say, read by libpng without inflating the picture data.
struct PNGChunks {
    var width: Int
    var height: Int
    var bitDepth: Int
    var hasAlpha: Bool
    var metadata: ImageMetadata
    var warnings: [String]

    init(_ file: [UInt8]) throws {
        var image = cic_png_image()
        defer { cic_png_image_free(&image) }
        var bitDepth: Int32 = 0
        try callCodec("libpng") { err, errlen in
            file.withUnsafeBufferPointer { cic_png_read_info($0.baseAddress, $0.count, &image, &bitDepth, err, errlen) }
        }
        var warnings: [String] = []
        metadata = PNGDecoder.metadata(of: image, warnings: &warnings)   // as convert reads it
        (width, height, self.bitDepth, hasAlpha, self.warnings) = (Int(image.width), Int(image.height), Int(bitDepth), image.channels == 4, warnings)
    }
}

extension ImageInspector {
    /// From the chunks alone: a PNG's picture data is never inflated to learn its size.
    static func inspectPNG(_ file: [UInt8]) throws -> ImageDescription {
        let chunks = try PNGChunks(file)
        var description = describe(chunks.metadata, format: "PNG", width: chunks.width, height: chunks.height)
        description.bitDepth = chunks.bitDepth
        description.hasAlpha = chunks.hasAlpha
        description.notes += chunks.warnings
        return description
    }
}
