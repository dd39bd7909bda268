/// A JPEG written as JPEG is never made worse: it is passed through when nothing must change, turned
/// and re-tagged without decoding when only that is needed, and otherwise re-encoded no higher than its own
/// quality and, when it already fit the budget, no larger than it was.
enum JPEGInput {
    /// The output when no re-encode is needed; otherwise nil, with `settings` narrowed for the re-encode.
    static func prepare(_ file: [UInt8], settings: inout ConversionSettings) throws -> PreparedImage? {
        let decoder = JPEGDecoder()
        let stored = try decoder.header(of: file)
        try decoder.checkPixelCap(stored, options: DecodeOptions(maxPixels: settings.maxPixels))
        var (metadata, readWarnings) = JPEGMarkers.metadata(in: file)
        let rawOrientation = metadata.exif.flatMap(Exif.orientation(in:))
        let orientation = rawOrientation.map(ExifOrientation.init(exifValue:)) ?? .up
        let upright = orientation.swapsDimensions ? (width: stored.height, height: stored.width) : (width: stored.width, height: stored.height)
        let resizes = settings.maxDimension.map { max(upright.width, upright.height) > $0 } ?? false
        let sourceQuality = JPEGMarkers.estimatedQuality(of: file)
        // A file that already fits its budget never comes back larger.
        var limit = settings.budget?.maxBytes
        if let budget = limit, file.count <= budget { limit = file.count }

        let sourceProgressive = JPEGMarkers.isProgressive(file)
        // A gain map goes with the picture (turned like it) or, with --hdr drop, goes entirely.
        let keepsGainMap = GainMapPlan.writes(settings)
        let gainMap = JPEGGainMapReader.read(file, primaryEXIF: metadata.exif, decodes: keepsGainMap)
        // (An MPF file of other images, such as a camera's preview, is not a gain-map file.)
        let hasGainMapStructure = gainMap.origin != nil || GainMapClaims.inJPEGHeader(file)
        if hasGainMapStructure { metadata.uncarriedSegments = GainMapPlan.withoutContainerSegments(metadata.uncarriedSegments) }
        // Only an Ultra HDR file that keeps a map imgprep read and checked, and states nothing it did not
        // read, can leave as it came (Apple's maps are converted).
        let gainMapMustChange = keepsGainMap
            ? gainMap.origin == .appleMPF || (gainMap.gainMap == nil && hasGainMapStructure)
                || (gainMap.gainMap != nil && !UltraHDRContainer.statesOnlyItsMap(file, metadata: metadata, reading: gainMap))
            : hasGainMapStructure
        // Keeping the coefficients saves only what optimal Huffman tables and removed metadata save (under a
        // tenth on camera files), so a file more than a fifth over its limit goes straight to the re-encode.
        let mayFit = limit.map { file.count <= $0 + $0 / 5 } ?? true
        // Under --color srgb, only a file whose colours are sRGB already can keep its coefficients.
        let keepsColours = settings.color == .keep || SRGBConversion.isSRGB(metadata.icc, stripping: settings.stripMetadata)
        if !resizes, settings.budget != nil || settings.keepsInputCoding, mayFit, keepsColours {
            // What leaves without a decode must be as sound as what a decode accepts.
            try JPEGDecoder.checkIntegrity(of: file)
            let mustChange = rawOrientation.map { $0 != 1 } ?? false || OutputMetadata.mustChange(metadata, settings: settings)
                || settings.formatOptions.progressiveJPEG && !sourceProgressive || gainMapMustChange
            if !mustChange, file.count <= limit ?? .max {
                return PreparedImage(bytes: file, format: .jpeg, width: stored.width, height: stored.height, quality: nil,
                                     encodes: 0, passedThrough: true, warnings: [],
                                     gainMap: gainMap.gainMap == nil ? nil : UltraHDRContainer.written(in: file))
            }
            if settings.keepsInputCoding {
                var warnings = readWarnings + gainMap.warnings
                // Segments imgprep does not read stay when the header is edited in place: named only if they go.
                var readable = metadata
                readable.uncarriedSegments = []
                // The source's claims go; a kept map gets claims of its own below.
                GainMapPlan.withoutClaims(&readable, warnings: &warnings)
                var output = OutputMetadata.prepare(readable, for: JPEGEncoder(), width: upright.width, height: upright.height,
                                                    settings: settings, warnings: &warnings)
                // The map turned by the same transform, re-encoded at the map's own quality.
                let map = try gainMap.gainMap.map { try UltraHDRContainer.encodeMap($0.oriented(orientation)) }
                if let map {
                    output = UltraHDRContainer.primaryMetadata(output, mapLength: map.count)
                } else {
                    warnings += GainMapPlan.notes(gainMap, written: false, settings: settings)
                }
                let segments = JPEGSegment.segments(for: output)
                let progressive = settings.formatOptions.progressiveJPEG || sourceProgressive
                // An Ultra HDR file's MPF index and ISO block are rebuilt around the kept map (or removed with it).
                func container(_ result: (bytes: [UInt8], keptOthers: Bool)?) -> (bytes: [UInt8], keptOthers: Bool)? {
                    guard let result, hasGainMapStructure else { return result }
                    let bytes = map.map { UltraHDRContainer.assemble(primary: result.bytes, map: $0) }
                        ?? UltraHDRContainer.primaryOnly(result.bytes)
                    return (bytes, result.keptOthers)
                }
                var result = container(lossless(file, orientation: orientation, segments: segments, progressive: progressive, settings: settings))
                // Turned blocks code a little differently: an optimised file can grow by a percent or so, and
                // progressive scans usually win that back (still lossless).
                if let larger = result, larger.bytes.count > limit ?? .max, !progressive {
                    result = container(lossless(file, orientation: orientation, segments: segments, progressive: true, settings: settings))
                }
                if let (bytes, keptOthers) = result, bytes.count <= limit ?? .max {
                    if !keptOthers, !settings.stripMetadata, let names = OutputMetadata.uncarriedWarning(metadata.uncarriedSegments) {
                        warnings.append(names)
                    }
                    return PreparedImage(bytes: bytes, format: .jpeg, width: upright.width, height: upright.height,
                                         quality: sourceQuality, encodes: 0, passedThrough: false, lossless: true, warnings: warnings,
                                         gainMap: map == nil ? nil : UltraHDRContainer.written(in: bytes))
                }
            }
        }

        if let sourceQuality {
            if settings.budget != nil {
                settings.quality = min(settings.quality, sourceQuality)
            } else if settings.keepsInputCoding && !resizes {
                settings.quality = sourceQuality   // no quality was asked for: a turn that cannot be lossless keeps the source's
            }
        }
        if let limit { settings.budget?.maxBytes = limit }
        return nil
    }

    /// The file upright with `segments` as its metadata and its coefficients untouched, and whether the
    /// segments imgprep does not read were kept (an in-place edit); nil when that cannot be done losslessly
    /// (the pipeline then decodes, and reports the file's problems if any).
    private static func lossless(_ file: [UInt8], orientation: ExifOrientation, segments: [JPEGSegment],
                                 progressive: Bool, settings: ConversionSettings) -> (bytes: [UInt8], keptOthers: Bool)? {
        do {
            if orientation != .up {
                return try JPEGLossless.upright(file, orientation: orientation, progressive: progressive, segments: segments)
                    .map { ($0, false) }
            }
            // Only the metadata changes: edit it in place, or re-write the coefficients when stripping everything
            // (markers imgprep does not read go too), when the scans must become progressive, or when the
            // header cannot be edited in place.
            if !settings.stripMetadata, progressive == JPEGMarkers.isProgressive(file),
               let edited = JPEGLossless.replacingMetadata(in: file, with: segments) {
                return (edited, true)
            }
            return (try JPEGLossless.recoded(file, progressive: progressive, segments: segments), false)
        } catch {
            return nil
        }
    }
}
