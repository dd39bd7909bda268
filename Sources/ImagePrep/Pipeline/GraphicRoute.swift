/// `compress` without `--to`: a graphic (GraphicContent) whose source holds its pixels exactly (PNG, GIF)
/// is written in `settings.graphicFormat` (PNG) at full size: its lossless file when that fits the
/// budget, else the palette of the highest quality that fits. Only when neither fits does it go the way
/// of a photo (`settings.format`, shrunk if need be), with a note saying so: a screenshot that a palette
/// holds at full size never becomes a shrunk, blurred JPEG.
enum GraphicRoute {
    /// - Parameters:
    ///   - learn: the pipeline as far as the source's facts (it throws SourceFactsLearnt there).
    ///   - prepare: the pipeline for one set of settings.
    static func prepare(_ file: [UInt8], settings: ConversionSettings, graphicFormat: OutputFormat,
                        learn: (ConversionSettings, inout SourceFacts) throws -> Void,
                        prepare: (ConversionSettings) throws -> PreparedImage) throws -> PreparedImage {
        var photo = settings
        photo.graphicFormat = nil
        guard case .success(let source) = FormatSniffer.sniff(file), source.reader.storesLosslessly else { return try prepare(photo) }
        var facts = SourceFacts()
        // A source that fails here fails the same way on the photo's route, where its error is reported.
        do { try learn(photo, &facts) } catch {}
        guard facts.known, facts.isGraphic == true, !facts.isAnimated else { return try prepare(photo) }
        var graphic = photo
        graphic.format = graphicFormat
        graphic.palette = false   // in place, a PNG's settings ask for a palette (for a photo); a graphic tries lossless first
        let lossless = try prepare(graphic)
        guard let budget = settings.budget, lossless.bytes.count > budget.maxBytes else { return lossless }
        if graphicFormat.writer.paletteTraits != nil {
            graphic.palette = true
            graphic.budget?.allowDownscale = false
            do {
                var palette = try prepare(graphic)
                palette.encodes += lossless.encodes
                return palette
            } catch let error as ImagePrepError where error.kind == .doesNotFit {}
        }
        var written = try prepare(photo)
        let how = written.format == graphicFormat ? "shrunk to \(written.width)x\(written.height)" : "written as \(written.format.writer.displayName)"
        written.warnings.insert("a graphic, but no \(graphicFormat.writer.displayName) of it fits \(budget.formatted) at full size: \(how)", at: 0)
        return written
    }
}
