/// `--lossless` JPEG XL from a JPEG that needs no change: the JPEG's own DCT coefficients recompressed
/// (libjxl's JxlEncoderAddJPEGFrame, with what rebuilds the JPEG in a `jbrd` box), so that
/// `djxl out.jxl back.jpg` gives back the input byte for byte, about a fifth smaller. Its reader says
/// whether the input is such a file and whether it must change (`UnchangedInputReader.unchanged`).
enum JXLRecompression {
    /// The recompressed file, or nil when the input is not DCT-coded, must change (turned, resized,
    /// converted, re-tagged, a gain map dropped), is over a budget, or libjxl cannot store it for
    /// reconstruction: it is then re-encoded from its pixels, and `notes` says why (that file is several
    /// times the input's size).
    static func prepare(_ file: [UInt8], settings: ConversionSettings, notes: inout [String]) throws -> PreparedImage? {
        guard settings.lossless, let reader = try? FormatSniffer.sniff(file).get().reader as? any UnchangedInputReader,
              reader.codedAsDCTBlocks else { return nil }
        guard let input = try reader.unchanged(file, settings: settings) else {
            notes.append("--lossless: the JPEG must change (turned, resized, converted, re-tagged or its gain map dropped), so its pixels are stored, in a far larger file than the JPEG recompressed")
            return nil
        }
        let bytes: [UInt8]
        do {
            bytes = try recompress(file)
        } catch {
            notes.append("--lossless: the JPEG cannot be recompressed as it is (\(error)), so its pixels are stored, in a far larger file")
            return nil
        }
        if let budget = settings.budget, bytes.count > budget.maxBytes { return nil }
        return PreparedImage(bytes: bytes, format: .jxl, width: input.width, height: input.height, quality: nil,
                             encodes: 1, passedThrough: false, lossless: true, warnings: input.warnings)
    }

    /// The input's coefficients and what rebuilds the file, at the writer's effort.
    static func recompress(_ file: [UInt8], threads: Int = 1) throws -> [UInt8] {
        try JXLEncoder.recompress(file, effort: JXLDefaults.effort, threads: threads)
    }
}
