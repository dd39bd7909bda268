/// Turns the source's metadata into what the output carries: Orientation 1 (the pixels are upright now),
/// the output's pixel dimensions, GPS removed on request, and EXIF small enough for one JPEG segment.
enum OutputMetadata {
    /// The largest TIFF block one JPEG APP1 segment holds: 65,533 payload bytes less "Exif\0\0".
    static let maxJPEGExifBytes = 65_533 - 6
    /// The largest XMP packet one APP1 holds: 65,533 less the 29-byte namespace header.
    static let maxJPEGXMPBytes = 65_533 - 29

    static func prepare(_ source: ImageMetadata, for format: OutputFormat, width: Int, height: Int,
                        settings: ConversionSettings, warnings: inout [String]) -> ImageMetadata {
        var output = ImageMetadata(icc: source.icc)
        if settings.stripMetadata { return output }
        if let exif = source.exif {
            let options = ExifPatchOptions(
                orientation: 1, pixelWidth: width, pixelHeight: height, stripGPS: settings.stripGPS,
                maxBytes: format == .jpeg ? maxJPEGExifBytes : nil)
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
                if format == .jpeg && patched.count > maxJPEGXMPBytes {
                    warnings.append("dropped the XMP packet: \(patched.count) bytes do not fit one JPEG segment")
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
