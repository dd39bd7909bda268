/// A PNG that needs no new pixels (no resize, upright, metadata unchanged, colours kept) comes out no
/// larger than it went in: it is rewritten in the smallest layout (PNGReduction), and when that is not
/// smaller the input is kept byte for byte, as optipng and oxipng do.
enum PNGInput {
    static func smallerOfInputAndRewrite(_ file: [UInt8], settings: ConversionSettings) throws -> PreparedImage? {
        // An animated file's rewrite would be its first frame.
        guard settings.keepsInputCoding, !containsChunk("acTL", in: file) else { return nil }
        // From the chunks first, nothing inflated: a picture the pipeline will resize or turn is decoded
        // there, once. A 16-bit file's rewrite would be 8-bit, not the same pixels.
        let stored = try PNGChunks(file)
        guard stored.bitDepth <= 8 else { return nil }
        if let maxDimension = settings.maxDimension, max(stored.width, stored.height) > maxDimension { return nil }
        if stored.metadata.exif.flatMap(Exif.orientation(in:)).map(ExifOrientation.init(exifValue:)) ?? .up != .up { return nil }
        let decoded = try PNGDecoder().decode(file, options: DecodeOptions(maxPixels: settings.maxPixels))
        let pixels = decoded.content.rgb()
        if OutputMetadata.mustChange(decoded.metadata, settings: settings) { return nil }
        // PNG carries no gain map: an XMP claim to one must go (GainMapPlan.withoutClaims, on the re-encode).
        if decoded.metadata.xmp.map(GainMapClaims.inPacket) == true { return nil }
        if settings.color == .srgb && !SRGBConversion.isSRGB(decoded.metadata.icc, stripping: settings.stripMetadata) { return nil }
        // A profile libpng will not write with these pixels is for the pipeline to drop, with its warning.
        guard let rewrite = try? PNGEncoder.encode(pixels, metadata: decoded.metadata,
                                                   compressionLevel: settings.formatOptions.pngCompressionLevel) else { return nil }
        let kept = rewrite.count >= file.count
        // A palette was asked for to meet a budget: the exact file only where it fits.
        if settings.palette && min(rewrite.count, file.count) > settings.budget?.maxBytes ?? 0 { return nil }
        return PreparedImage(bytes: kept ? file : rewrite, format: .png, width: pixels.width, height: pixels.height, quality: nil,
                             encodes: kept ? 0 : 1, passedThrough: kept, warnings: decoded.warnings)
    }

    /// Whether a chunk of `type` is in the file, walking the chunks by their lengths (stopping at the end
    /// of the bytes, or at a length that runs past them).
    static func containsChunk(_ type: String, in file: [UInt8]) -> Bool {
        let wanted = Array(type.utf8)
        var offset = 8
        while offset + 8 <= file.count {
            let length = file[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if file[offset + 4..<offset + 8].elementsEqual(wanted) { return true }
            guard length <= file.count - offset - 12 else { return false }
            offset += 12 + length
        }
        return false
    }
}
