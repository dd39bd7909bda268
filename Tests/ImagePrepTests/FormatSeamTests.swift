import Testing
@testable import ImagePrep

/// A writer (and a reader) is a descriptor and one or two methods; what only some formats do is a
/// capability the pipeline finds by casting, so the descriptor's claims and the capabilities must agree.
@Suite struct FormatSeamTests {
    @Test(arguments: Formats.writers.map(\.format))
    func descriptorAgreesWithTheCapabilities(_ format: OutputFormat) {
        let writer = format.writer
        let descriptor = writer.descriptor
        #expect(descriptor.names.first == format.rawValue)
        // What browsers are sent in `<source type>` (IANA's registrations, and image/jxl as browsers use it).
        let registered = ["avif": "image/avif", "webp": "image/webp", "jpeg": "image/jpeg", "png": "image/png",
                          "heic": "image/heic", "jxl": "image/jxl"]
        #expect(descriptor.mediaType == registered[format.rawValue], "\(format)")
        // The pipeline writes a gain map only through a GainMapWriter, and plans one only where traits say so.
        #expect((writer is any GainMapWriter) == descriptor.traits.carriesGainMap, "\(format)")
        // A lossless format's palette mode is lossy; its plain mode is not.
        if let palette = descriptor.paletteTraits { #expect(palette.isLossy && !descriptor.traits.isLossy) }
        #expect(writer.encoder(for: settings(format), context: EncoderContext()).traits.sizeModel?.name == descriptor.traits.sizeModel?.name)
    }

    /// JPEG XL's recompression takes over a reader's coded blocks only from a file the reader says is
    /// unchanged: a reader coded as DCT blocks must be able to say so.
    @Test func everyReaderCodedAsBlocksCanSayItsFileIsUnchanged() {
        for reader in Formats.readers {
            #expect((reader is any UnchangedInputReader) == reader.codedAsDCTBlocks, "\(reader.displayName)")
        }
        #expect(Formats.readers.contains { $0.codedAsDCTBlocks })
    }

    private func settings(_ format: OutputFormat) -> ConversionSettings {
        var settings = ConversionSettings()
        settings.format = format
        settings.quality = format.writer.defaultQuality
        return settings
    }
}
