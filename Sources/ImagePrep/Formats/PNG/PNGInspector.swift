import CImageCodecs

extension ImageInspector {
    /// From the chunks alone: a PNG's picture data is never inflated to learn its size.
    static func inspectPNG(_ file: [UInt8]) throws -> ImageDescription {
        var image = cic_png_image()
        defer { cic_png_image_free(&image) }
        var bitDepth: Int32 = 0
        try callCodec("libpng") { err, errlen in
            file.withUnsafeBufferPointer { cic_png_read_info($0.baseAddress, $0.count, &image, &bitDepth, err, errlen) }
        }
        var warnings: [String] = []
        let metadata = PNGDecoder.metadata(of: image, warnings: &warnings)   // as convert reads it
        var description = describe(metadata, format: "PNG", width: Int(image.width), height: Int(image.height))
        description.bitDepth = Int(bitDepth)
        description.hasAlpha = image.channels == 4
        description.notes += warnings
        return description
    }
}
