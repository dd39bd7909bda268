extension ImageInspector {
    /// From the segments alone, and the gain map's MPF index: no scan is decoded.
    static func inspectJPEG(_ file: [UInt8]) throws -> ImageDescription {
        let (width, height) = try JPEGDecoder.dimensions(of: file)
        let (metadata, warnings) = JPEGMarkers.metadata(in: file)
        var description = describe(metadata, format: "JPEG", width: width, height: height)
        description.notes += warnings
        let reading = JPEGGainMapReader.read(file, primaryEXIF: metadata.exif, decodes: false)
        if let origin = reading.origin {
            description.gainMap = GainMapSummary(reading, origin: origin, bytes: MultiPictureFormat.secondaryImages(in: file).first?.count)
            description.notes += reading.warnings + (reading.problem.map { ["the gain map cannot be used: \($0) (imgprep leaves it out)"] } ?? [])
        } else if GainMapClaims.inJPEGHeader(file) {
            description.notes.append("the XMP says there is an Ultra HDR gain map, but the file holds none (imgprep removes the claim)")
        }
        return description
    }
}
