import Foundation

extension JPEGFormatReader {
    func endsEarly(_ file: [UInt8]) -> Bool { (try? JPEGDecoder.checkIntegrity(of: file)) == nil }

    /// The JPEG as it stands, when nothing about it must change for `settings`: upright, within
    /// --max-dimension, its colours kept (or already sRGB), metadata as it is, and no gain map (Ultra HDR,
    /// Apple's MPF map, or only claims of one), which a re-encode drops with its warning. Whole: a JPEG cut
    /// short is re-encoded from what decodes, with the decoder's warning.
    func unchanged(_ file: [UInt8], settings: ConversionSettings) throws -> UnchangedInput? {
        let decoder = JPEGDecoder()
        let stored = try decoder.header(of: file)
        try decoder.checkPixelCap(stored, options: DecodeOptions(maxPixels: settings.maxPixels))
        let (metadata, warnings) = JPEGMarkers.metadata(in: file)
        if let orientation = metadata.exif.flatMap(Exif.orientation(in:)), orientation != 1 { return nil }
        if let maxDimension = settings.maxDimension, max(stored.width, stored.height) > maxDimension { return nil }
        if settings.color == .srgb && !SRGBConversion.isSRGB(metadata.icc, stripping: settings.stripMetadata) { return nil }
        if OutputMetadata.mustChange(metadata, settings: settings) { return nil }
        if GainMapClaims.inJPEGHeader(file) || JPEGGainMapReader.read(file, primaryEXIF: metadata.exif, decodes: false).origin != nil {
            return nil
        }
        try JPEGDecoder.checkIntegrity(of: file)
        return UnchangedInput(width: stored.width, height: stored.height, warnings: warnings)
    }
}
