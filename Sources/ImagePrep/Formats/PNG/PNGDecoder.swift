import CImageCodecs

/// Decodes PNG files with libpng to 8-bit RGB or RGBA, with their ICC profile (iCCP), EXIF
/// (eXIf) and XMP (iTXt "XML:com.adobe.xmp"). Truncated or corrupt files are errors.
public struct PNGDecoder: ImageDecoding {
    public init() {}

    /// The size from IHDR, which must come first: signature (8), length (4), "IHDR" (4), width (4), height (4).
    public func header(of file: [UInt8]) throws -> ImageHeader {
        guard file.count >= 24, file[12..<16].elementsEqual("IHDR".utf8) else {
            throw ImagePrepError.library("libpng", "no IHDR chunk at the start of the file")
        }
        let width = file[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = file[20..<24].reduce(0) { $0 << 8 | Int($1) }
        return ImageHeader(width: width, height: height)
    }

    public func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        var warnings: [String] = []
        let (pixels, metadata, deep, readWarnings) = try Self.decode(file, maxPixels: options.maxPixels, keeping16Bits: options.convertsToSRGB) { image, metadata in
            let transform = SRGBConversion.transform(for: metadata.icc, bytesPerSample: 2, stride: image.channels, warnings: &warnings)
            return Self.reduced(image, converting: transform, threads: options.threads)
        }
        warnings = readWarnings + warnings
        let orientation = metadata.exif.flatMap(Exif.orientation(in:)).map(ExifOrientation.init(exifValue:)) ?? .up
        var decoded = DecodedImage(pixels: pixels, metadata: metadata, orientation: orientation, warnings: warnings)
        decoded.sourceBitDepth = deep ? 16 : 8
        decoded.isSRGB = deep && options.convertsToSRGB
        return decoded
    }

    /// Files with more than `maxPixels` pixels are refused from their header, before decoding.
    public static func decode(_ file: [UInt8], maxPixels: Int = .max) throws -> (PixelBuffer, ImageMetadata) {
        let (pixels, metadata, _, _) = try decode(file, maxPixels: maxPixels, keeping16Bits: false) { image, _ in
            reduced(image, converting: nil, threads: 1)
        }
        return (pixels, metadata)
    }

    /// 16-bit samples as libpng handed them out: native-endian words, `channels` per pixel.
    struct WideSamples {
        var words: UnsafePointer<UInt16>
        var width: Int, height: Int, channels: Int
    }

    /// Decodes with libpng; a 16-bit file decoded with `keeping16Bits` goes through `reduce` (returns
    /// whether it did), with the warnings about what was read.
    private static func decode(_ file: [UInt8], maxPixels: Int, keeping16Bits: Bool,
                               reduce: (WideSamples, ImageMetadata) -> PixelBuffer) throws -> (PixelBuffer, ImageMetadata, Bool, [String]) {
        let decoder = PNGDecoder()
        try decoder.checkPixelCap(try decoder.header(of: file), options: DecodeOptions(maxPixels: maxPixels))
        var image = cic_png_image()
        defer { cic_png_image_free(&image) }
        try callCodec("libpng") { err, errlen in
            file.withUnsafeBufferPointer {
                keeping16Bits ? cic_png_decode16($0.baseAddress, $0.count, &image, err, errlen)
                              : cic_png_decode($0.baseAddress, $0.count, &image, err, errlen)
            }
        }
        guard let pixels = image.pixels else { throw ImagePrepError.library("libpng", "decoder returned no pixels") }
        var warnings: [String] = []
        var metadata = Self.metadata(of: image, warnings: &warnings)
        metadata.describeGrayAsRGB(warnings: &warnings)   // gray comes out as R=G=B (png_codec.c)
        let (width, height, channels) = (Int(image.width), Int(image.height), Int(image.channels))
        if image.bytes_per_sample == 2 {
            let words = UnsafeRawPointer(pixels).assumingMemoryBound(to: UInt16.self)
            return (reduce(WideSamples(words: words, width: width, height: height, channels: channels), metadata), metadata, true, warnings)
        }
        let buffer = PixelBuffer(width: width, height: height, channels: channels,
                                 pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height * channels)))
        return (buffer, metadata, false, warnings)
    }

    /// The chunks' metadata, for the decoder and `info` alike.
    static func metadata(of image: cic_png_image, warnings: inout [String]) -> ImageMetadata {
        var exif = bytes(image.exif, image.exif_size)
        // Some writers keep JPEG's APP1 header in eXIf; ImageMetadata.exif starts at the TIFF header.
        if let tiff = exif, tiff.starts(with: JPEGSegment.exifHeader) {
            exif = Array(tiff.dropFirst(JPEGSegment.exifHeader.count))
        }
        var metadata = ImageMetadata(exif: exif, xmp: bytes(image.xmp, image.xmp_size))
        if let problem = iccProblem(image) {
            metadata.dropICC(because: "libpng rejected it (\(problem))", warnings: &warnings)
        } else {
            // libpng has matched the profile's colour space to the colour type already.
            metadata.setICC(bytes(image.icc, image.icc_size), for: [.rgb, .gray], warnings: &warnings)
        }
        return metadata
    }

    /// libpng drops an iCCP profile it rejects (a CMYK or gray profile for RGB data, a damaged one) with
    /// only a warning: said as the other decoders say it, since the colours may now be read wrong.
    private static func iccProblem(_ image: cic_png_image) -> String? {
        let problem = withUnsafeBytes(of: image.icc_problem) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return problem.isEmpty ? nil : problem
    }

    /// 16-bit samples to 8 bits: through the colour transform when there is one, else scaled with rounding.
    private static func reduced(_ image: WideSamples, converting transform: ColorTransform?, threads: Int) -> PixelBuffer {
        let (width, channels) = (image.width, image.channels)
        let rowSamples = width * channels
        let input = SharedPointer(UnsafeMutablePointer(mutating: image.words))
        let pixels = [UInt8](unsafeUninitializedCapacity: rowSamples * image.height) { out, count in
            let output = SharedPointer(out.baseAddress!)   // width and height are > 0 (libpng refuses empty pictures)
            inBands(of: image.height, threads: threads) { rows in
                for y in rows {
                    let row = input.pointer + y * rowSamples, outRow = output.pointer + y * rowSamples
                    if let transform {
                        transform.apply(row, outRow, count: width)
                        if channels == 4 { for x in 0..<width { outRow[x * 4 + 3] = UInt8((UInt32(row[x * 4 + 3]) * 255 + 32767) / 65535) } }
                    } else {
                        for i in 0..<rowSamples { outRow[i] = UInt8((UInt32(row[i]) * 255 + 32767) / 65535) }
                    }
                }
            }
            count = rowSamples * image.height
        }
        return PixelBuffer(width: width, height: image.height, channels: channels, pixels: pixels)
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> [UInt8]? {
        guard let pointer, count > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}
