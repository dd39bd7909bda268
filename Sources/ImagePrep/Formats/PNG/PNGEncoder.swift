import CImageCodecs
import Synchronization

/// Encodes RGB or RGBA pixels to PNG with libpng, in the smallest layout that holds them exactly, writing the metadata as iCCP, eXIf, an uncompressed
/// iTXt "XML:com.adobe.xmp" chunk and "Comment" text chunks, all before the image data. In palette mode the
/// pixels are first brought down to at most 256 colours at the quality asked (PNGPalette).
public struct PNGEncoder: ImageEncoding {
    /// libdeflate's level, 0 (stored) ... 12 (smallest).
    public var compressionLevel: Int
    /// PNG's lossy mode: quantized to a palette first.
    public var palette: Bool
    /// The palette's dithering, 0 (none) to 1 (full Floyd-Steinberg, libimagequant's and pngquant's default).
    public var dithering: Float

    /// The exact file of the picture last quantized: the same for every trial of a search.
    private let exactFiles = ExactFiles()

    public init(compressionLevel: Int = PNGEncoder.defaultCompressionLevel, palette: Bool = false, dithering: Float = 1) {
        self.compressionLevel = compressionLevel
        self.palette = palette
        self.dithering = dithering
    }

    public static let defaultCompressionLevel = 12

    public var format: OutputFormat { .png }
    public var traits: FormatTraits { palette ? PNGFormatWriter.palette : PNGFormatWriter().traits }
    /// A palette's alternative is the exact file: smaller on some flat graphics of a few hundred colours,
    /// where dithering costs more than it saves, and what a score the palette cannot reach falls back to.
    public var alternative: (any ImageEncoding)? { palette ? PNGEncoder(compressionLevel: compressionLevel) : nil }

    /// A palette's trials deflated at a cheap level: the same pixels, and only the answer searched hardest.
    public var scoringDraft: (any ImageEncoding)? {
        palette && compressionLevel > Self.draftLevel
            ? PNGEncoder(compressionLevel: Self.draftLevel, palette: true, dithering: dithering) : nil
    }
    private static let draftLevel = 6

    /// A dithered palette's alternative under `--quality auto`: none. Dithering costs bytes on flat
    /// graphics, where the plain palette often reaches the same score a third smaller (pngquant --nofs on
    /// kcachegrind's screenshot: 24,357 bytes at 83.0 against 36,845 at 83.7), and saves colours on shaded icons.
    public var scoredAlternative: (any ImageEncoding)? {
        palette && dithering > 0 ? PNGEncoder(compressionLevel: compressionLevel, palette: true, dithering: 0) : nil
    }

    public func metadataBytes(_ metadata: ImageMetadata) -> Int {
        (metadata.exif?.count ?? 0) + (metadata.xmp?.count ?? 0) + (metadata.icc?.count ?? 0)
    }

    public func encode(_ picture: DecodedPixels, quality: Int, metadata: ImageMetadata) throws -> [UInt8] {
        let pixels = picture.rgb()
        guard palette else { return try Self.encode(pixels, metadata: metadata, compressionLevel: compressionLevel) }
        let quantized = try Self.encode(PNGPalette.quantized(pixels, quality: quality, dithering: dithering),
                                        metadata: metadata, compressionLevel: compressionLevel)
        // Few enough colours to be a palette as they are: the exact file when that is no larger.
        guard let exact = try exactFiles.file(of: pixels, metadata: metadata, compressionLevel: compressionLevel) else { return quantized }
        return exact.count <= quantized.count ? exact : quantized
    }

    /// `compressionLevel` is libdeflate's 0...12. The pixels are written in each layout PNGReduction finds
    /// for them (palette, grey, no alpha where every pixel is opaque), each with the row filters it may
    /// take, and the smallest file is kept: the first of equals, so the same pixels always give the same bytes.
    /// Above `rankingLevel` the candidates are first deflated at that cheap level, and only those within
    /// `rankingMargin` of the best are deflated again at `compressionLevel`: a layout that loses by more at
    /// the cheap level has not been seen to win at the top one, and the top levels cost ten times as much.
    /// libpng refuses an ICC profile that does not suit RGB data (a gray or CMYK profile, say):
    /// that is thrown, so the caller decides whether to drop the profile and retry.
    public static func encode(_ image: PixelBuffer, metadata: ImageMetadata,
                              compressionLevel: Int = defaultCompressionLevel) throws -> [UInt8] {
        precondition(PNGDeflate.levels.contains(compressionLevel), "PNG compression level must be in \(PNGDeflate.levels)")
        let layouts = PNGReduction.candidates(for: image, allowsGrey: metadata.icc == nil)
            .flatMap { layout in layout.filterChoices.map { (layout, $0) } }
        func written(_ choice: (PNGLayout, Bool), level: Int) throws -> [UInt8] {
            let (layout, filtersNone) = choice
            let stored = try encode(layout, filtersNone: filtersNone, width: image.width, height: image.height, metadata: metadata)
            let filtered = try PNGDeflate.filteredRows(of: stored, filteredSize: image.height * (1 + layout.rowBytes))
            return try PNGDeflate.replacingImageData(of: stored, with: PNGDeflate.deflated(filtered, level: level))
        }
        // Only the sizes are kept from the ranking, and the few finalists written again: a photo's
        // candidates hold tens of megabytes each.
        let ranked = compressionLevel > rankingLevel && layouts.count > 1
            ? try layouts.map { try written($0, level: rankingLevel).count } : layouts.map { _ in 0 }
        let best = ranked.min() ?? 0
        var smallest: [UInt8]?
        for (choice, size) in zip(layouts, ranked) where Double(size) <= Double(best) * (1 + rankingMargin) {
            let file = try written(choice, level: compressionLevel)
            if file.count < smallest?.count ?? Int.max { smallest = file }
        }
        guard let smallest else { throw ImagePrepError.library("libpng", "no layout to write", kind: .unsupported) }
        return smallest
    }

    private static let rankingLevel = 6
    private static let rankingMargin = 0.03

    /// The file libpng writes with its picture data stored (deflate level 0): PNGDeflate compresses it.
    static func encode(_ layout: PNGLayout, filtersNone: Bool, width: Int, height: Int, metadata: ImageMetadata) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        defer { cic_free(output) }
        try callCodec("libpng", kind: .unsupported) { err, errlen in
            withBytes(metadata.icc) { icc in
                withBytes(metadata.exif) { exif in
                    withBytes(metadata.xmp) { xmp in
                        withBytes(layout.palette) { palette in
                            withBytes(layout.paletteAlpha) { paletteAlpha in
                                withComments(metadata.comments) { comments in
                                    var options = cic_png_options()
                                    options.compression_level = 0
                                    options.color_type = layout.colorType
                                    options.bit_depth = layout.bitDepth
                                    options.palette = palette.baseAddress
                                    options.palette_size = Int32(palette.count / 3)
                                    options.palette_alpha = paletteAlpha.baseAddress
                                    options.palette_alpha_size = Int32(paletteAlpha.count)
                                    options.filters_none = filtersNone ? 1 : 0
                                    options.icc = icc.baseAddress
                                    options.icc_size = icc.count
                                    options.exif = exif.baseAddress
                                    options.exif_size = exif.count
                                    options.xmp = xmp.baseAddress
                                    options.xmp_size = xmp.count
                                    options.comments = comments.baseAddress
                                    options.comment_count = comments.count
                                    return layout.rows.withUnsafeBufferPointer { rows in
                                        cic_png_encode_rows(rows.baseAddress, layout.rowBytes, Int32(width), Int32(height),
                                                            &options, &output, &outputSize, err, errlen)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard let output else { throw ImagePrepError.library("libpng", "encoder returned no data", kind: .unsupported) }
        return Array(UnsafeBufferPointer(start: output, count: outputSize))
    }

    /// JPEG comments as PNG `Comment` text: UTF-8 that is not plain ASCII goes to iTXt, anything else to
    /// tEXt (Latin-1). PNG text cannot hold NUL bytes: C-style terminators are trimmed, others removed.
    private static func withComments<R>(_ comments: [[UInt8]], _ body: (UnsafeBufferPointer<cic_png_text>) -> R) -> R {
        let texts = comments.map { comment -> (bytes: [UInt8], utf8: Bool) in
            let bytes = comment.filter { $0 != 0 }
            let isUTF8 = String(validating: bytes, as: UTF8.self) != nil
            return (bytes, isUTF8 && bytes.contains { $0 >= 0x80 })
        }
        let joined = texts.flatMap(\.bytes)   // one array, so every pointer stays valid for the whole call
        return joined.withUnsafeBufferPointer { storage in
            var offset = 0
            let chunks = texts.map { text in
                defer { offset += text.bytes.count }
                return cic_png_text(text: storage.baseAddress.map { $0 + offset }, size: text.bytes.count, utf8: text.utf8 ? 1 : 0)
            }
            return chunks.withUnsafeBufferPointer(body)
        }
    }

    /// An absent block is an empty buffer (NULL pointer, count 0), which the C side skips.
    private static func withBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let bytes else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return bytes.withUnsafeBufferPointer(body)
    }
}

/// The exact file of one picture (nil when it has more than 256 colours), kept for the next trial of the
/// same search, which may run beside this one.
private final class ExactFiles: Sendable {
    private struct Entry {
        let pixels: PixelBuffer, metadata: ImageMetadata, compressionLevel: Int, file: [UInt8]?
    }
    private let last = Mutex<Entry?>(nil)

    func file(of pixels: PixelBuffer, metadata: ImageMetadata, compressionLevel: Int) throws -> [UInt8]? {
        if let known = last.withLock({ entry in
            entry.flatMap { $0.pixels == pixels && $0.metadata == metadata && $0.compressionLevel == compressionLevel ? $0 : nil }
        }) { return known.file }
        let file = PNGReduction.PixelFacts(pixels).palette == nil
            ? nil : try PNGEncoder.encode(pixels, metadata: metadata, compressionLevel: compressionLevel)
        last.withLock { $0 = Entry(pixels: pixels, metadata: metadata, compressionLevel: compressionLevel, file: file) }
        return file
    }
}
