/// A WebP (still or animated) written as WebP, within budget, that needs no resize, rotation or
/// metadata change is left as it is: re-encoding would only lose quality.
enum WebPInput {
    static func passThrough(_ file: [UInt8], settings: ConversionSettings) throws -> PreparedImage? {
        guard let budget = settings.budget, file.count <= budget.maxBytes else { return nil }
        let webp = try WebPContainer(file)
        guard webp.warnings.isEmpty else { return nil }
        if let maxDimension = settings.maxDimension, max(webp.width, webp.height) > maxDimension { return nil }
        if let exif = webp.metadata.exif, let orientation = Exif.orientation(in: exif), orientation != 1 { return nil }
        if OutputMetadata.mustChange(webp.metadata, settings: settings) { return nil }
        // WebP carries no gain map: an XMP claim to one must go (GainMapPlan.withoutClaims, on the re-encode).
        if webp.metadata.xmp.map(GainMapClaims.inPacket) == true { return nil }
        if settings.color == .srgb && !SRGBConversion.isSRGB(webp.metadata.icc, stripping: settings.stripMetadata) { return nil }
        return PreparedImage(bytes: file, format: .webp, width: webp.width, height: webp.height, quality: nil,
                             encodes: 0, passedThrough: true, warnings: [])
    }
}
