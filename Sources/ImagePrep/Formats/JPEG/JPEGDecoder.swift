import CImageCodecs

/// Decodes JPEG files with libjpeg-turbo to 8-bit RGB, whatever the source colour space.
/// Missing or damaged picture data is an error, never a grey-filled image.
public struct JPEGDecoder: ImageDecoding {
    public init() {}

    public func header(of file: [UInt8]) throws -> ImageHeader {
        let (width, height) = try Self.dimensions(of: file)
        return ImageHeader(width: width, height: height)
    }

    /// The stored pixels (EXIF Orientation is left to the pipeline), as 4:2:0 planes when asked and the
    /// file has them at full size, else RGB, decoded smaller when the pipeline shrinks a lot anyway.
    public func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        try Self.namingAllowTruncated { try decodeWhole(file, options: options) }
    }

    private func decodeWhole(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        let header = try header(of: file)
        try checkPixelCap(header, options: options)
        var (metadata, warnings) = JPEGMarkers.metadata(in: file)
        // The pixels come out RGB: gray as R=G=B, CMYK converted without the profile (jpeg_decode.c).
        metadata.describeGrayAsRGB(warnings: &warnings)
        if metadata.icc.map(ICCProfileCheck.colourSpace(of:)) == .cmyk {
            metadata.dropICC(because: "it describes CMYK ink, and the picture is decoded to RGB without it", warnings: &warnings)
        }
        let orientation = metadata.exif.flatMap(Exif.orientation(in:)).map(ExifOrientation.init(exifValue:)) ?? .up
        let denominator = Self.shrinkOnLoad(width: header.width, height: header.height, shrinkingTo: options.shrinkingTo)
        let content: DecodedPixels
        var rowsMissing = 0
        // Planes with an odd side cannot be turned plane by plane (see YCbCr420Image.oriented).
        let turnable = orientation == .up || (header.width % 2 == 0 && header.height % 2 == 0)
        if options.keepsYCbCr420, denominator == 1, turnable,
           let planes = try Self.decodePlanes(file, allowingTruncation: options.allowsTruncated, rowsMissing: &rowsMissing) {
            content = .ycbcr420(planes)
        } else {
            content = .rgb(try Self.decode(file, scaleDenominator: denominator, allowingTruncation: options.allowsTruncated,
                                           rowsMissing: &rowsMissing))
        }
        if let note = Self.truncationNote(rowsMissing: rowsMissing, height: content.height) { warnings.append(note) }
        var decoded = DecodedImage(content: content, metadata: metadata, orientation: orientation, warnings: warnings)
        decoded.sizeHint = JPEGMarkers.estimatedQuality(of: file).map { ($0, file.count) }
        decoded.isDCTBlockGrid = denominator == 1
        decoded.gainMap = JPEGGainMapReader.read(file, primaryEXIF: metadata.exif, decodes: options.readsGainMap)
        decoded.warnings += decoded.gainMap.warnings
        return decoded
    }

    /// libjpeg can decode at 1/2, 1/4 or 1/8 size almost for free (its scaled IDCT is itself a good
    /// filter). A factor of 1.5 or more is left for the Lanczos step, so the result stays within
    /// 40 dB of vipsthumbnail's (which leaves 2) at a quarter of the decoding work.
    static func shrinkOnLoad(width: Int, height: Int, shrinkingTo longEdge: Int?) -> Int {
        guard let longEdge, longEdge > 0 else { return 1 }
        let factor = Double(max(width, height)) / Double(longEdge)
        for denominator in [8, 4, 2] where factor / Double(denominator) >= 1.5 { return denominator }
        return 1
    }

    /// Throws what decoding would throw for damaged picture data (truncated, corrupt), without making
    /// pixels: for files passed on or transformed without a decode.
    public static func checkIntegrity(of file: [UInt8]) throws {
        try namingAllowTruncated {
            try callCodec("libjpeg") { err, errlen in
                file.withUnsafeBufferPointer { cic_jpeg_check($0.baseAddress, $0.count, err, errlen) }
            }
        }
    }

    /// libjpeg's "Premature end of JPEG file" with what the user can do about it: phones and half-finished
    /// downloads leave such files, and most of their picture is usually there.
    static func namingAllowTruncated<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as ImagePrepError where error.description.contains("Premature end of JPEG file") {
            error.description += "; the file ends early: --allow-truncated writes what arrived, the missing rows grey"
            throw error
        }
    }

    /// The image size from the headers alone: cheap, for a pixel-cap check before decoding.
    public static func dimensions(of file: [UInt8]) throws -> (width: Int, height: Int) {
        let layout = try layout(of: file)
        return (layout.width, layout.height)
    }

    /// The size and the number of colour components, from the headers alone.
    static func layout(of file: [UInt8]) throws -> (width: Int, height: Int, components: Int) {
        var width: Int32 = 0, height: Int32 = 0, components: Int32 = 0
        try callCodec("libjpeg") { err, errlen in
            file.withUnsafeBufferPointer {
                cic_jpeg_read_header($0.baseAddress, $0.count, &width, &height, &components, err, errlen)
            }
        }
        return (Int(width), Int(height), Int(components))
    }

    /// `--allow-truncated`'s warning for a file whose data ended early, or nil for a whole file.
    static func truncationNote(rowsMissing: Int, height: Int) -> String? {
        guard rowsMissing != 0, height > 0 else { return nil }
        guard rowsMissing > 0 else {
            return "the file ends early (Premature end of JPEG file): not every scan arrived, so the whole picture lacks detail; wrote what decoded (--allow-truncated)"
        }
        let share = String(format: "%.1f", 100 * Double(min(rowsMissing, height)) / Double(height))
        return "the file ends early (Premature end of JPEG file): the bottom \(rowsMissing) of \(height) rows (\(share)% of the picture) are missing, filled grey; wrote what decoded (--allow-truncated)"
    }

    /// Decodes to 3-channel RGB. A `scaleDenominator` of 2, 4 or 8 has libjpeg decode straight to
    /// about 1/N of the size (rounded up), far cheaper than decoding everything and shrinking after.
    public static func decode(_ file: [UInt8], scaleDenominator: Int = 1) throws -> PixelBuffer {
        var rowsMissing = 0
        return try decode(file, scaleDenominator: scaleDenominator, allowingTruncation: false, rowsMissing: &rowsMissing)
    }

    /// As `decode`, and with `allowingTruncation` a file that ends early decodes as far as it goes:
    /// `rowsMissing` says how much did not (see cic_jpeg_decode).
    static func decode(_ file: [UInt8], scaleDenominator: Int, allowingTruncation: Bool, rowsMissing: inout Int) throws -> PixelBuffer {
        precondition([1, 2, 4, 8].contains(scaleDenominator), "JPEG scale denominator must be 1, 2, 4 or 8")
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0, missing: Int32 = 0
        defer { cic_free(pixels) }
        try callCodec("libjpeg") { err, errlen in
            file.withUnsafeBufferPointer {
                cic_jpeg_decode($0.baseAddress, $0.count, Int32(scaleDenominator),
                                &pixels, &width, &height, allowingTruncation ? 1 : 0, &missing, err, errlen)
            }
        }
        rowsMissing = Int(missing)
        guard let pixels else { throw ImagePrepError.library("libjpeg", "decoder returned no pixels") }
        let count = Int(width) * Int(height) * 3
        return PixelBuffer(width: Int(width), height: Int(height), channels: 3,
                           pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }

    /// The Y'CbCr 4:2:0 planes as stored, or nil when the file is laid out otherwise: a JPEG that is
    /// re-encoded at its own size then skips colour conversion and chroma resampling both ways.
    public static func decodePlanes(_ file: [UInt8]) throws -> YCbCr420Image? {
        var rowsMissing = 0
        return try decodePlanes(file, allowingTruncation: false, rowsMissing: &rowsMissing)
    }

    static func decodePlanes(_ file: [UInt8], allowingTruncation: Bool, rowsMissing: inout Int) throws -> YCbCr420Image? {
        var planes: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0, missing: Int32 = 0
        var notPlanar = false
        try callCodec("libjpeg") { err, errlen in
            let status = file.withUnsafeBufferPointer {
                cic_jpeg_decode_ycbcr420($0.baseAddress, $0.count, &planes, &width, &height,
                                         allowingTruncation ? 1 : 0, &missing, err, errlen)
            }
            notPlanar = status == CIC_NOT_YCBCR420
            return notPlanar ? 0 : status
        }
        rowsMissing = Int(missing)
        guard !notPlanar else { return nil }
        guard let planes else { throw ImagePrepError.library("libjpeg", "decoder returned no pixels") }
        let owner = CodecBuffer(planes)
        return YCbCr420Image(packed: UnsafeRawPointer(planes), width: Int(width), height: Int(height), layout: .jfif, owner: owner)
    }
}
