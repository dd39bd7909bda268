/// How much memory one worker needs for one file, from the file's header alone (no decoding).
/// The factors are measured (scripts/peak-rss.py, one file per run, -j 1): a worker peaked at 6.0
/// bytes per pixel for the 200 MP HEIC, 7.4 for 12 MP HEICs (libheif's Y'CbCr and RGB planes, then
/// libjpeg's coefficients), 5.0-6.8 for 24 MP JPEGs and PNGs with and without resizing, and 10.4-11.4
/// for pictures with alpha (interleaved RGBA, then flattened) — plus about 15 MB for the process.
/// A HEIC kept in its Y'CbCr 4:2:0 planes takes half the bytes of RGB: a worker converting a 12 MP
/// HEIC to JPEG that way peaked at 83 MB, against 101 MB through RGB (and 91 MB against 126 MB to WebP).
/// (JPEGs keep the RGB factor: only a 4:2:0 one read at full size stays in planes.)
/// WebP, AVIF and HEIC encoders need more on top (`ImageEncoding.workingBytesPerPixel`), once per
/// trial that runs at the same time.
enum MemoryEstimate {
    /// A worker's own footprint before any file: the Swift runtime, Foundation and the codec libraries.
    static let baseline = 48 << 20
    /// Used when the header cannot be read: the pipeline will most likely fail fast on such a file.
    static let unknownPicture = 256 << 20

    /// Bytes of a file read to estimate it before the whole file is: every header HeaderProbe reads
    /// sits near the start in the files phones and cameras write.
    static let headBytes = 1 << 20

    static func peak(of file: [UInt8], settings: ConversionSettings, threads: Int = 1) -> Int {
        peak(ofHead: file, fileSize: file.count, settings: settings, threads: threads)
    }

    /// The estimate from the first bytes of a file of `fileSize` bytes (all of it, or `headBytes`).
    static func peak(ofHead head: [UInt8], fileSize: Int, settings: ConversionSettings, threads: Int) -> Int {
        let fileBytes = fileSize.multipliedReportingOverflow(by: 2)
        let held = fileBytes.overflow ? Int.max / 4 : min(fileBytes.partialValue, Int.max / 4)
        guard case .success(let format) = FormatSniffer.sniff(head),
              let header = HeaderProbe.header(of: head, format: format) else {
            return baseline + unknownPicture + held
        }
        let pixels = min(header.pixelCount, settings.maxPixels)
        // --to auto prepares one format after another: the hungriest one counts.
        let formats = settings.autoFormats?.map(\.format) ?? [settings.format]
        let working = formats.map { format -> Int in
            var one = settings
            one.format = format
            let encoder = EncoderRegistry.encoder(for: one, searching: settings.budget != nil)
            // The search runs at most two trials at once (QualitySearch).
            let lanes = settings.budget != nil && encoder.runsTrialsSideBySide ? min(2, max(1, threads)) : 1
            return encoder.workingBytesPerPixel * lanes
        }.max() ?? 0
        // Planes from decoder to encoder: 1.5 bytes per pixel instead of RGB's 3, and no interleaved copy.
        let planes = !header.hasAlpha && settings.color == .keep && settings.scoreTarget == nil && format.reader.decodesToYCbCrPlanes
            && formats.allSatisfy { format in
                var one = settings
                one.format = format
                return EncoderRegistry.encoder(for: one, searching: settings.budget != nil).ycbcrLayout != nil
            }
        let perPixel = (header.hasAlpha ? 12 : planes ? 5 : 8) + working
        let (product, overflow) = pixels.multipliedReportingOverflow(by: perPixel)
        // --quality auto holds the metric's reference (every frame's) beside the encodes.
        let scoring = settings.scoreTarget == nil ? 0
            : SSIMULACRA2.workingBytes(width: min(header.width, 1 << 20), height: min(pixels / max(min(header.width, 1 << 20), 1), 1 << 30))
        return baseline + (overflow ? Int.max / 4 : min(product + scoring, Int.max / 4)) + held
    }

    /// The data limit a worker sets for the file: room above the estimate for the estimate's error,
    /// low enough that a picture far bigger than its header admitted fails alone.
    static func ceiling(forEstimate estimate: Int) -> Int {
        let doubled = estimate.multipliedReportingOverflow(by: 2)
        return doubled.overflow ? Int.max : max(doubled.partialValue, estimate + (512 << 20))
    }
}
