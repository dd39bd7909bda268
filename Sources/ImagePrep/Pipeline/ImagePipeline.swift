import Foundation

/// sniff → decode → orient → resize → encode (with the quality search), for one file in memory.
/// Writing is the caller's job (see AtomicWriter), so the library never touches the file system here.
public enum ImagePipeline {
    public static func prepare(_ file: [UInt8], settings: ConversionSettings) throws -> PreparedImage {
        let format = try FormatSniffer.sniff(file).get()
        if let untouched = try passThrough(file, format: format, settings: settings) { return untouched }

        let decoded = try SourceDecoder.decode(file, format: format, settings: settings)
        var settings = settings
        var warnings = decoded.warnings
        // Target size from the full-size upright dimensions, so shrink-on-load does not change the rounding.
        let (fullWidth, fullHeight) = fullSize(decoded, file: file, format: format)
        let target = settings.maxDimension.map { fittedSize(width: fullWidth, height: fullHeight, maxDimension: $0) }

        // A JPEG source's own size and quality predict the first trial, saving the encode at the ceiling.
        func sizeHints(width: Int, height: Int) -> [Int: Int] {
            guard let hint = decoded.sizeHint else { return [:] }
            let area = Double(width * height) / Double(fullWidth * fullHeight)
            return [hint.quality: Int(Double(hint.bytes) * pow(area, JPEGOutput.sizeExponent))]
        }

        // A JPEG turned by 90° at its own size keeps its block grid: transposed tables requantize each
        // block as the unturned file would be (about 5% smaller than the standard tables at quality 86).
        if format == .jpeg, decoded.orientation.swapsDimensions, target.map({ max($0.width, $0.height) == max(fullWidth, fullHeight) }) ?? true {
            settings.jpeg.transposedQuantization = true
        }
        // Planes stay planes through resizing and into the JPEG encoder: no full-size interleaved copy.
        var picture = decoded.content
        picture = picture.oriented(decoded.orientation)
        if let target, target.width != picture.width || target.height != picture.height {
            picture = picture.resized(width: target.width, height: target.height, threads: settings.threadsPerImage)
        }

        switch settings.format {
        case .png:
            let image = picture.rgb()
            let metadata = OutputMetadata.prepare(decoded.metadata, for: .png, width: image.width,
                                                  height: image.height, settings: settings, warnings: &warnings)
            let bytes = try PNGEncoder.encode(image, metadata: metadata, compressionLevel: settings.pngCompressionLevel)
            return PreparedImage(bytes: bytes, format: .png, width: image.width, height: image.height,
                                 quality: nil, encodes: 1, passedThrough: false, warnings: warnings)
        case .jpeg:
            switch picture {
            case .rgb(let image) where image.hasAlpha:
                picture = .rgb(flattened(image, onto: settings.background))
            case .ycbcr420 where settings.jpegSettings(searching: settings.budget != nil).subsampling != .s420:
                picture = .rgb(picture.rgb())  // a JPEG's own 4:2:0 planes go out as 4:2:0 only
            default:
                break
            }
            return try JPEGOutput.encode(picture, metadata: decoded.metadata, settings: settings, warnings: warnings,
                                         sizeHints: sizeHints(width: picture.width, height: picture.height))
        }
    }

    /// A JPEG already within budget that needs no resize, rotation or metadata change is left as it is:
    /// re-encoding would only lose quality.
    static func passThrough(_ file: [UInt8], format: SniffedFormat, settings: ConversionSettings) throws -> PreparedImage? {
        guard format == .jpeg, settings.format == .jpeg, let budget = settings.budget, file.count <= budget.maxBytes
        else { return nil }
        let (width, height) = try JPEGDecoder.dimensions(of: file)
        if let maxDimension = settings.maxDimension, max(width, height) > maxDimension { return nil }
        let (metadata, _) = JPEGMarkers.metadata(in: file)
        if let exif = metadata.exif, let orientation = Exif.orientation(in: exif), orientation != 1 { return nil }
        if settings.stripMetadata && (metadata.exif != nil || metadata.xmp != nil) { return nil }
        if settings.stripGPS && (metadata.exif.map(Exif.hasGPS) ?? false || metadata.xmp.map(XMP.hasGPS) ?? false) { return nil }
        return PreparedImage(bytes: file, format: .jpeg, width: width, height: height, quality: nil,
                             encodes: 0, passedThrough: true, warnings: [])
    }

    /// The upright size of the image at full resolution (before any shrink-on-load).
    private static func fullSize(_ decoded: DecodedImage, file: [UInt8], format: SniffedFormat) -> (Int, Int) {
        var width = decoded.content.width, height = decoded.content.height
        if format == .jpeg, let header = try? JPEGDecoder.dimensions(of: file) { (width, height) = header }
        return decoded.orientation.swapsDimensions ? (height, width) : (width, height)
    }

    /// Composites straight alpha over a solid colour: JPEG has no alpha.
    static func flattened(_ image: PixelBuffer, onto background: RGBColor) -> PixelBuffer {
        let count = image.width * image.height
        var out = [UInt8](repeating: 0, count: count * 3)
        let bg = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<count {
                    let alpha = UInt32(src[i * 4 + 3])
                    for c in 0..<3 {
                        let value = UInt32(src[i * 4 + c]) * alpha + bg[c] * (255 - alpha)
                        dst[i * 3 + c] = UInt8((value + 127) / 255)
                    }
                }
            }
        }
        return PixelBuffer(width: image.width, height: image.height, channels: 3, pixels: out)
    }
}
