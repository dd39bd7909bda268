/// Everything that decides what one input becomes. One value serves a whole batch.
public struct ConversionSettings: Sendable, Codable {
    public var format: OutputFormat = Formats.defaultOutput
    /// The quality, or the ceiling of the search when a budget is set.
    public var quality: Int = Formats.defaultOutput.defaultQuality
    /// Long edge of the output; never enlarges.
    public var maxDimension: Int?
    /// What transparent pixels become in a format without alpha (`FormatTraits.keepsAlpha`).
    public var background: RGBColor = .white
    /// Removes where the picture was taken: the EXIF GPS directory, the XMP location properties (see `XMP`)
    /// and the IPTC City, Sub-location, Province/State and Country datasets (see `IPTC`).
    public var stripLocation = false
    /// Drops EXIF, XMP, IPTC and comments; the ICC profile stays so colours do not change.
    public var stripMetadata = false
    /// Chroma subsampling for the formats that choose one (`FormatTraits.subsamplesChroma`); nil chooses
    /// like libvips and ImageMagick: 4:4:4 for a single encode at quality 90 or more, 4:2:0 otherwise and
    /// for every budget search (fixed within a search).
    public var subsampling: ChromaSubsampling?
    /// An input in the output format that needs no resize keeps its coded picture (turned upright and
    /// re-tagged without decoding, see the writer's `keepingInput`). false when the user asked for a
    /// particular encode (`convert --quality`, `--subsampling`), which takes a re-encode.
    public var keepsInputCoding = true
    /// `--allow-truncated`: a JPEG whose data ends early is decoded as far as it goes (with a warning)
    /// instead of failing, and is never kept as it is.
    public var allowsTruncated = false
    /// A lossless mode instead of a lossy one, for a writer that offers one (`offersLosslessMode`).
    public var lossless = false
    /// A palette of at most 256 colours, chosen by a quantizer, for a writer whose lossy mode that is
    /// (`paletteTraits`, PNG): `quality` then decides how many colours, and budgets and score targets search it.
    public var palette = false
    /// What happens to colours: kept in the source's profile, or converted to sRGB.
    public var color: ColorHandling = .keep
    /// What happens to an HDR photo's gain map: written beside the picture where the format carries one
    /// (`FormatTraits.carriesGainMap`), or dropped.
    public var hdr: HDRHandling = .keep
    /// The values given for options only one format reads (each writer's `options`).
    public var formatOptions = FormatOptions()
    public var budget: ByteBudget?
    /// `--quality auto`: the lowest quality whose output reaches this score (`quality` is then the ceiling).
    public var scoreTarget: ScoreTarget?
    /// `compress` without `--to`: the format a graphic whose source holds its pixels exactly (PNG, GIF) is
    /// written in instead of `format`, lossless or as a palette at full size when either fits (GraphicRoute).
    public var graphicFormat: OutputFormat?
    /// `--to auto`: the formats one of which each picture is written in, the smallest that meets the
    /// target or budget (`format` is then only the first of them, for what is planned before a picture).
    public var autoFormats: [FormatQuality]?
    /// Inputs with more pixels are refused before decoding.
    public var maxPixels = 300_000_000
    /// A web image set: several outputs per input (`format` and `quality` are then only the first's).
    public var set: SetSettings?
    public init() {}

    /// `subsampling` resolved: every format that subsamples chroma follows the same rule.
    func chromaSubsampling(searching: Bool) -> ChromaSubsampling {
        subsampling ?? (!searching && quality >= 90 ? .s444 : .s420)
    }
}

/// `--color`: keep the source's colour profile (and pixels), or convert the pixels to sRGB for the web.
public enum ColorHandling: String, Sendable, CaseIterable, Codable {
    case keep, srgb
}

/// `--hdr`: keep an HDR photo's gain map where the output format can carry it, or write plain SDR.
public enum HDRHandling: String, Sendable, CaseIterable, Codable {
    case keep, drop
}

/// The byte ceiling for `compress` (and `convert --max-bytes`).
public struct ByteBudget: Sendable, Codable {
    public var maxBytes: Int
    public var minQuality = 40
    public var strategy: SearchStrategy = .binary
    /// When even `minQuality` is over budget: shrink the image until it fits (true) or fail (false).
    public var allowDownscale = true
    /// The units the budget was given in, so messages say "200 KiB" to whoever wrote `200KiB`.
    public var family: ByteSize.Family = .decimal

    public init(maxBytes: Int, family: ByteSize.Family = .decimal) {
        self.maxBytes = maxBytes
        self.family = family
    }

    /// The budget as the user wrote it (`1 MB`, `200 KiB`), for messages.
    public var formatted: String { ByteSize.format(maxBytes, family: family) }
}

public struct RGBColor: Sendable, Equatable, Codable {
    public var red: UInt8, green: UInt8, blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// `white`, `black`, `#rrggbb` or `rrggbb`.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "white": self = .white
        case "black": self = .black
        default:
            let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
            self.init(red: UInt8(value >> 16), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        }
    }
}

/// What came out of the pipeline for one input.
public struct PreparedImage: Sendable, Codable {
    public var bytes: [UInt8]
    public var format: OutputFormat
    public var width: Int
    public var height: Int
    /// The quality written (nil for lossless outputs and for inputs passed through unchanged; for a lossless
    /// JPEG transform, the source's own quality as its tables tell it).
    public var quality: Int?
    /// How many encodes of the picture it took (0 when the input was passed through).
    public var encodes: Int
    /// Encodes of a sixteenth of the picture (ProbeMosaic) that aimed those: cheap, but counted apart.
    public var probes = 0
    /// The input already met every requirement and its bytes are passed through untouched.
    public var passedThrough: Bool
    /// A JPEG input whose DCT coefficients were kept: turned or flipped and re-tagged, not re-encoded.
    public var lossless = false
    /// Things the user should know: dropped metadata, downscaling to fit a budget.
    public var warnings: [String]
    /// The HDR gain map written beside the picture (Ultra HDR JPEG), if any.
    public var gainMap: WrittenGainMap?
    /// The SSIMULACRA 2 score of what was written against the picture as it would be written losslessly
    /// (`--quality auto`; an animation's lowest frame score).
    public var score: Double?
    /// Encodes that were decoded and scored (`--quality auto`).
    public var scores = 0
    /// `--to auto`: what each allowed format came to, in the order tried.
    public var candidates: [FormatCandidate]?
    /// A web image set: its variants (whose files `bytes` holds end to end) and the source's facts.
    public var set: PreparedSet?
}

/// A format to write, with the quality to use in it (the ceiling of its search): one of `--to auto`'s
/// candidates, or one format of a web image set.
public struct FormatQuality: Sendable, Codable, Equatable {
    public var format: OutputFormat
    public var quality: Int

    public init(format: OutputFormat, quality: Int) {
        self.format = format
        self.quality = quality
    }
}

/// One format `--to auto` weighed for a picture.
public struct FormatCandidate: Sendable, Codable, Equatable {
    public var format: OutputFormat
    public var bytes: Int
    public var quality: Int?
    public var score: Double?
    /// Whether it meets the target (or, with only a budget, fits without shrinking).
    public var meets: Bool
    /// False for a format not searched because its crop mosaic predicted far more bytes than another
    /// format's answer: `bytes` is then that prediction.
    public var searched = true
    /// Written in the format's lossless mode (tried for graphics).
    public var lossless = false

    public init(format: OutputFormat, bytes: Int, quality: Int?, score: Double?, meets: Bool, searched: Bool = true,
                lossless: Bool = false) {
        (self.format, self.bytes, self.quality, self.score) = (format, bytes, quality, score)
        (self.meets, self.searched, self.lossless) = (meets, searched, lossless)
    }
}
