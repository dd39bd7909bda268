/// `--lossless` JPEG XL from a JPEG that needs no change: the JPEG's own DCT coefficients recompressed
/// (libjxl's JxlEncoderAddJPEGFrame, with what rebuilds the JPEG in a `jbrd` box), so that
/// `djxl out.jxl back.jpg` gives back the input byte for byte, about a fifth smaller.
/// (It reads the JPEG through the JPEG format's own helpers; the lead may route this through a reader hook.)
enum JXLRecompression {
    /// The inputs the writer is asked about before decoding.
    static func takes(_ format: SniffedFormat) -> Bool { format == .jpeg }

    /// The recompressed file, or nil when the JPEG must change (turned, resized, converted, re-tagged, a gain
    /// map dropped, over a budget) or libjxl cannot store it for reconstruction: it is then re-encoded.
    static func prepare(_ file: [UInt8], settings: ConversionSettings) throws -> PreparedImage? {
        guard settings.lossless else { return nil }
        let decoder = JPEGDecoder()
        let stored = try decoder.header(of: file)
        try decoder.checkPixelCap(stored, options: DecodeOptions(maxPixels: settings.maxPixels))
        let (metadata, warnings) = JPEGMarkers.metadata(in: file)
        if let orientation = metadata.exif.flatMap(Exif.orientation(in:)), orientation != 1 { return nil }
        if let maxDimension = settings.maxDimension, max(stored.width, stored.height) > maxDimension { return nil }
        if settings.color == .srgb && !SRGBConversion.isSRGB(metadata.icc, stripping: settings.stripMetadata) { return nil }
        if JPEGInput.metadataMustChange(metadata, settings: settings) { return nil }
        // A gain map (Ultra HDR, Apple's MPF map, or only claims of one) is dropped by a re-encode, with its warning.
        if GainMapClaims.inJPEGHeader(file) || JPEGGainMapReader.read(file, primaryEXIF: metadata.exif, decodes: false).origin != nil {
            return nil
        }
        try JPEGDecoder.checkIntegrity(of: file)
        guard let bytes = try? recompress(file) else { return nil }
        if let budget = settings.budget, bytes.count > budget.maxBytes { return nil }
        return PreparedImage(bytes: bytes, format: .jxl, width: stored.width, height: stored.height, quality: nil,
                             encodes: 1, passedThrough: false, lossless: true, warnings: warnings)
    }

    /// The JPEG's coefficients and reconstruction data, at the writer's effort.
    static func recompress(_ file: [UInt8], threads: Int = 1) throws -> [UInt8] {
        try JXLEncoder.recompress(file, effort: JXLDefaults.effort, threads: threads)
    }
}
