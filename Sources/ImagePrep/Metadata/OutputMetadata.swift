/// Turns the source's metadata into what the output carries: Orientation 1 (the pixels are upright now),
/// the output's pixel dimensions, location removed on request, blocks small enough for the output format,
/// and only the blocks the format has a place for. Whatever is left out is named in a warning.
enum OutputMetadata {
    static func prepare(_ source: ImageMetadata, for encoder: any ImageEncoding, width: Int, height: Int,
                        settings: ConversionSettings, warnings: inout [String]) -> ImageMetadata {
        var output = ImageMetadata(icc: source.icc)
        if !settings.stripMetadata {
            output.exif = exif(source.exif, limits: encoder.traits.metadataLimits, width: width, height: height,
                               settings: settings, warnings: &warnings)
            output.xmp = xmp(source.xmp, limits: encoder.traits.metadataLimits, settings: settings, warnings: &warnings)
            output.iptc = iptc(source.iptc, settings: settings, warnings: &warnings)
            output.comments = source.comments
            output.extendedXMP = extendedXMP(source.extendedXMP, mainXMP: output.xmp, settings: settings, warnings: &warnings)
            if let names = uncarriedWarning(source.uncarriedSegments) { warnings.append(names) }
        }
        let formatName = encoder.format.rawValue.uppercased()
        for block in output.blocks where !encoder.traits.carriedMetadata.contains(block) {
            warnings.append(RoutineNotice.noPlace(for: block.name, in: formatName))
            output = output.removing(block)
        }
        return output
    }

    /// For an input kept as it came (a writer's `keepingInput`): whether the strip options find something to remove, the file holds a profile ICCProfileCheck refused
    /// (it must not leave with it), or its EXIF block carries a padded tail every re-encode would cut (a copy
    /// left as it came would spend those bytes of its budget on nothing).
    static func mustChange(_ metadata: ImageMetadata, settings: ConversionSettings) -> Bool {
        if metadata.droppedICC != nil { return true }
        if let exif = metadata.exif, Exif.unreferencedTail(exif) >= Exif.tailWorthTrimming { return true }
        if settings.stripMetadata {
            return metadata.exif != nil || metadata.xmp != nil || metadata.iptc != nil || !metadata.comments.isEmpty
        }
        guard settings.stripLocation else { return false }
        return metadata.exif.map(Exif.hasGPS) ?? false || metadata.xmp.map(XMP.hasLocation) ?? false
            || metadata.iptc.map(IPTC.hasLocation) ?? false
    }

    private static func exif(_ exif: [UInt8]?, limits: MetadataLimits, width: Int, height: Int,
                             settings: ConversionSettings, warnings: inout [String]) -> [UInt8]? {
        guard let exif else { return nil }
        let options = ExifPatchOptions(
            orientation: 1, pixelWidth: width, pixelHeight: height, stripGPS: settings.stripLocation,
            maxBytes: limits.exifBytes, thumbnail: ExifThumbnail.change(for: exif, warnings: &warnings))
        do {
            let patched = try Exif.patch(exif, options: options)
            warnings += patched.warnings
            return patched.tiff
        } catch {
            warnings.append("dropped the EXIF data: \(error)")
            return nil
        }
    }

    private static func xmp(_ xmp: [UInt8]?, limits: MetadataLimits, settings: ConversionSettings,
                            warnings: inout [String]) -> [UInt8]? {
        guard let xmp else { return nil }
        do {
            let patched = try XMP.patch(xmp, resetOrientation: true, stripLocation: settings.stripLocation)
            if let limit = limits.xmpBytes, patched.count > limit {
                warnings.append("dropped the XMP packet: \(patched.count) bytes are more than the \(limit) the output format holds")
                return nil
            }
            return patched
        } catch {
            warnings.append("dropped the XMP packet: \(error)")
            return nil
        }
    }

    /// Kept byte for byte (its GUID is its MD5), so only while the main packet still names it; dropped
    /// rather than edited when location must go and it holds some.
    private static func extendedXMP(_ extended: ExtendedXMP?, mainXMP: [UInt8]?, settings: ConversionSettings,
                                    warnings: inout [String]) -> ExtendedXMP? {
        guard let extended else { return nil }
        guard let mainXMP, ExtendedXMP.guid(inMainXMP: mainXMP) == extended.guid else {
            warnings.append("dropped the extended XMP: the main XMP packet that names it is gone")
            return nil
        }
        if settings.stripLocation && XMP.hasLocation(extended.packet) {
            warnings.append("dropped the extended XMP: it holds location properties (--strip-location)")
            return nil
        }
        return extended
    }

    /// The warning for JPEG segments imgprep reads past and no output carries, or nil when there are none.
    static func uncarriedWarning(_ names: [String]) -> String? {
        names.isEmpty ? nil : "dropped JPEG segments imgprep does not carry: " + names.joined(separator: ", ")
    }

    /// Kept byte for byte unless location must go.
    private static func iptc(_ iptc: [UInt8]?, settings: ConversionSettings, warnings: inout [String]) -> [UInt8]? {
        guard let iptc, settings.stripLocation else { return iptc }
        do {
            return try IPTC.strippingLocation(iptc)
        } catch {
            warnings.append("dropped the IPTC data: \(error)")
            return nil
        }
    }
}
