import CImageCodecs

/// Decodes PNG files with libpng to 8-bit RGB or RGBA, with their ICC profile (iCCP), EXIF
/// (eXIf) and XMP (iTXt "XML:com.adobe.xmp"). Truncated or corrupt files are errors.
public enum PNGDecoder {
    /// Files with more than `maxPixels` pixels are refused from their header, before decoding.
    public static func decode(_ file: [UInt8], maxPixels: Int = .max) throws -> (PixelBuffer, ImageMetadata) {
        // IHDR must come first: signature (8), length (4), "IHDR" (4), width (4), height (4).
        if file.count >= 24, file[12..<16].elementsEqual("IHDR".utf8) {
            let width = file[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = file[20..<24].reduce(0) { $0 << 8 | Int($1) }
            // Each is up to 2^32 - 1, so the product can overflow even a 64-bit Int.
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || pixels > maxPixels {
                throw ImagePrepError(.tooLarge, "\(width)x\(height) is over the --max-pixels limit of \(maxPixels) pixels")
            }
        }
        var image = cic_png_image()
        defer { cic_png_image_free(&image) }
        try callCodec("libpng") { err, errlen in
            file.withUnsafeBufferPointer { cic_png_decode($0.baseAddress, $0.count, &image, err, errlen) }
        }
        guard let pixels = image.pixels else { throw ImagePrepError.library("libpng", "decoder returned no pixels") }
        let count = Int(image.width) * Int(image.height) * Int(image.channels)
        let buffer = PixelBuffer(width: Int(image.width), height: Int(image.height), channels: Int(image.channels),
                                 pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))

        var exif = bytes(image.exif, image.exif_size)
        // Some writers keep JPEG's APP1 header in eXIf; ImageMetadata.exif starts at the TIFF header.
        if let tiff = exif, tiff.starts(with: JPEGSegment.exifHeader) {
            exif = Array(tiff.dropFirst(JPEGSegment.exifHeader.count))
        }
        let metadata = ImageMetadata(exif: exif, xmp: bytes(image.xmp, image.xmp_size),
                                     icc: bytes(image.icc, image.icc_size))
        return (buffer, metadata)
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> [UInt8]? {
        guard let pointer, count > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}
