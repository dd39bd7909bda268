/// Decodes any input imgprep reads into upright-able 8-bit pixels plus metadata, choosing the
/// decoder from the sniffed format (never from the file name).
enum SourceDecoder {
    static func decode(_ file: [UInt8], format: SniffedFormat, settings: ConversionSettings) throws -> DecodedImage {
        switch format {
        case .heif(let major, let compatible):
            do {
                return try HeifDecoder(maxPixels: settings.maxPixels, decodingThreads: settings.threadsPerImage).decode(file)
            } catch let error as ImagePrepError where error.description.contains("does not include any supported brands") {
                // A sequence brand without a still-image brand: libheif's own wording does not say what is wrong.
                let brands = ([major] + compatible).filter { $0 != "    " }.map { "'\($0)'" }.joined(separator: ", ")
                throw ImagePrepError(.unsupported, "an image sequence with no still image (brands \(brands)); libheif 1.15 reads only still images")
            }
        case .jpeg:
            return try decodeJPEG(file, settings: settings)
        case .png:
            return try decodePNG(file, settings: settings)
        }
    }

    private static func decodeJPEG(_ file: [UInt8], settings: ConversionSettings) throws -> DecodedImage {
        let (width, height) = try JPEGDecoder.dimensions(of: file)
        try checkPixelCap(width: width, height: height, settings: settings)
        let (metadata, warnings) = JPEGMarkers.metadata(in: file)
        let orientation = metadata.exif.flatMap(Exif.orientation(in:)).map(ExifOrientation.init(exifValue:)) ?? .up
        let content: DecodedPixels
        // Re-encoded at its own size as 4:2:0: the stored planes (turned if need be) go to the encoder.
        if settings.format == .jpeg, orientation == .up || (width % 2 == 0 && height % 2 == 0),
           settings.maxDimension.map({ max(width, height) <= $0 }) ?? true,
           settings.jpegSettings(searching: settings.budget != nil).subsampling == .s420,
           let planes = try JPEGDecoder.decodePlanes(file) {
            content = .ycbcr420(planes)
        } else {
            let denominator = shrinkOnLoad(width: width, height: height, maxDimension: settings.maxDimension)
            content = .rgb(try JPEGDecoder.decode(file, scaleDenominator: denominator))
        }
        var decoded = DecodedImage(content: content, metadata: metadata, orientation: orientation, warnings: warnings)
        decoded.sizeHint = JPEGMarkers.estimatedQuality(of: file).map { ($0, file.count) }
        return decoded
    }

    private static func decodePNG(_ file: [UInt8], settings: ConversionSettings) throws -> DecodedImage {
        let (pixels, metadata) = try PNGDecoder.decode(file, maxPixels: settings.maxPixels)
        let orientation = metadata.exif.flatMap(Exif.orientation(in:)).map(ExifOrientation.init(exifValue:)) ?? .up
        return DecodedImage(pixels: pixels, metadata: metadata, orientation: orientation)
    }

    static func checkPixelCap(width: Int, height: Int, settings: ConversionSettings) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > settings.maxPixels {
            throw ImagePrepError(.tooLarge,
                "\(width)x\(height) is over the --max-pixels limit of \(settings.maxPixels) pixels")
        }
    }

    /// libjpeg can decode at 1/2, 1/4 or 1/8 size almost for free (its scaled IDCT is itself a good
    /// filter). A factor of 1.5 or more is left for the Lanczos step, so the result stays within
    /// 40 dB of vipsthumbnail's (which leaves 2) at a quarter of the decoding work.
    static func shrinkOnLoad(width: Int, height: Int, maxDimension: Int?) -> Int {
        guard let maxDimension, maxDimension > 0 else { return 1 }
        let factor = Double(max(width, height)) / Double(maxDimension)
        for denominator in [8, 4, 2] where factor / Double(denominator) >= 1.5 { return denominator }
        return 1
    }
}
