/// What the pipeline asks of a decoder. Nothing here names an output format: the pipeline turns what
/// the encoder can take into these requests, so a decoder never reads encode settings.
public struct DecodeOptions: Sendable, Equatable {
    /// Pictures with more pixels are refused from their headers, before any pixel is decoded.
    public var maxPixels: Int
    /// Threads one picture may use (libheif decodes grid tiles in parallel).
    public var threads: Int
    /// The long edge (as stored) the picture will be shrunk to, if any. A decoder may hand back a
    /// smaller picture than stored (libjpeg's DCT scaling) while its long edge stays at least 1.5x this.
    public var shrinkingTo: Int?
    /// Hand back the picture's own Y'CbCr 4:2:0 planes instead of RGB when it is coded so (the encoder takes
    /// planes): a JPEG's when it is not shrunk on load, a plain HEIC grid's.
    public var keepsYCbCr420: Bool
    /// Samples deeper than 8 bits are converted to sRGB before they are reduced to 8 bits (and the
    /// decoder says so in `DecodedImage.isSRGB`); 8-bit pictures are converted later, after resizing.
    public var convertsToSRGB: Bool
    /// Hand back every frame of an animation (`DecodedPixels.animation`); otherwise the first frame only,
    /// with a warning that says how many were dropped.
    public var keepsAnimation: Bool
    /// Decode the HDR gain map too (the output carries it); otherwise the decoder only says whether
    /// there is one (`DecodedImage.gainMap.origin`).
    public var readsGainMap = false
    /// `--allow-truncated`: a JPEG whose data ends early decodes as far as it goes, with a warning.
    public var allowsTruncated = false

    public init(maxPixels: Int, threads: Int = 1, shrinkingTo: Int? = nil, keepsYCbCr420: Bool = false,
                convertsToSRGB: Bool = false, keepsAnimation: Bool = false) {
        self.maxPixels = maxPixels
        self.threads = threads
        self.shrinkingTo = shrinkingTo
        self.keepsYCbCr420 = keepsYCbCr420
        self.convertsToSRGB = convertsToSRGB
        self.keepsAnimation = keepsAnimation
    }
}

/// What a file's headers tell without decoding any pixel: enough to refuse it, schedule it and
/// describe it.
public struct ImageHeader: Sendable, Equatable {
    /// The size the decoder hands back at full scale: HEIF transforms applied, EXIF Orientation not.
    public var width: Int
    public var height: Int
    /// Whether the picture has an alpha channel, where the header says (false when it does not tell).
    public var hasAlpha: Bool
    /// Frames of an animation (1 for a still picture): each is a whole canvas once composited.
    public var frames: Int

    public init(width: Int, height: Int, hasAlpha: Bool = false, frames: Int = 1) {
        self.width = width
        self.height = height
        self.hasAlpha = hasAlpha
        self.frames = frames
    }

    /// Pixels of every frame's canvas: what `--max-pixels` limits and memory estimates scale with.
    public var pixelCount: Int {
        let area = width.multipliedReportingOverflow(by: height)
        let all = area.partialValue.multipliedReportingOverflow(by: max(frames, 1))
        return area.overflow || all.overflow ? .max : all.partialValue
    }

    /// What convert and info both refuse from the header alone: a picture with no size (a HEIF item
    /// without `ispe`, a `clap` of 0x0) and one over the pixel cap (a `clap` of 2147483647x2147483647).
    public func check(maxPixels: Int) throws {
        guard width > 0, height > 0 else {
            throw ImagePrepError(.corrupt, "the header gives the picture no size (\(width)x\(height))")
        }
        guard pixelCount <= maxPixels else {
            let frameCount = frames > 1 ? " x \(frames) frames" : ""
            throw ImagePrepError(.tooLarge, "\(width)x\(height)\(frameCount) is over the --max-pixels limit of \(maxPixels) pixels")
        }
    }
}

/// Reads one file format into pixels plus metadata. Chosen by the sniffed format's reader
/// (`Formats.readers`), never from the file name.
public protocol ImageDecoding: Sendable {
    /// The picture's size from its headers alone.
    func header(of file: [UInt8]) throws -> ImageHeader
    func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage
}

extension ImageDecoding {
    /// Refuses a picture over the pixel cap before decoding (decompression bombs).
    func checkPixelCap(_ header: ImageHeader, options: DecodeOptions) throws {
        guard header.pixelCount > options.maxPixels else { return }
        try header.check(maxPixels: options.maxPixels)
    }
}

/// The decoder for each format imgprep reads, as its reader says.
public enum DecoderRegistry {
    public static func decoder(for format: SniffedFormat) -> any ImageDecoding { format.reader.decoder }
}
