/// Turns the source's metadata into what the output carries: Orientation 1 (the pixels are upright now),
/// the output's pixel dimensions, GPS removed on request, and blocks small enough for the output format.
enum OutputMetadata {
    static func prepare(_ source: ImageMetadata, limits: MetadataLimits, width: Int, height: Int,
                        settings: ConversionSettings, warnings: inout [String]) -> ImageMetadata {
        var output = ImageMetadata(icc: source.icc)
        if settings.stripMetadata { return output }
        if let exif = source.exif {
            let options = ExifPatchOptions(
                orientation: 1, pixelWidth: width, pixelHeight: height, stripGPS: settings.stripGPS,
                maxBytes: limits.exifBytes)
            do {
                let patched = try Exif.patch(exif, options: options)
                output.exif = patched.tiff
                warnings += patched.warnings
            } catch {
                warnings.append("dropped the EXIF data: \(error)")
            }
        }
        if let xmp = source.xmp {
            do {
                let patched = try XMP.patch(xmp, resetOrientation: true, stripGPS: settings.stripGPS)
                if let limit = limits.xmpBytes, patched.count > limit {
                    warnings.append("dropped the XMP packet: \(patched.count) bytes are more than the \(limit) the output format holds")
                } else {
                    output.xmp = patched
                }
            } catch {
                warnings.append("dropped the XMP packet: \(error)")
            }
        }
        return output
    }
}
