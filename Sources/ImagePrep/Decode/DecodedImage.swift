/// What a decoder hands to the rest of the pipeline.
public struct DecodedImage: Sendable {
    public var content: DecodedPixels
    public var metadata: ImageMetadata
    /// The transform still to apply to the pixels (HEIF decoders apply irot/imir/clap themselves and say `.up`).
    public var orientation: ExifOrientation
    /// Sample depth of the source (8, 10, 12, 16) before it became 8-bit pixels.
    public var sourceBitDepth: Int
    /// Things that were wrong but did not stop decoding, as sentences.
    public var warnings: [String]
    /// A known point of the size curve: a JPEG source's estimated quality and its size in bytes.
    public var sizeHint: (quality: Int, bytes: Int)?
    /// The pixels are a JPEG's 8x8 DCT blocks at full size, so a 90° turn transposes every block.
    public var isDCTBlockGrid = false
    /// The decoder already converted the pixels from `metadata.icc` to sRGB (deep samples, on request).
    public var isSRGB = false
    /// The HDR gain map beside the picture, stored as the picture is stored (EXIF Orientation not applied).
    public var gainMap = GainMapReading()

    /// RGB(A) pixels (converted from planes on each call: call once).
    public var pixels: PixelBuffer { content.rgb() }

    public init(pixels: PixelBuffer, metadata: ImageMetadata, orientation: ExifOrientation,
                sourceBitDepth: Int = 8, warnings: [String] = []) {
        self.init(content: .rgb(pixels), metadata: metadata, orientation: orientation,
                  sourceBitDepth: sourceBitDepth, warnings: warnings)
    }

    public init(content: DecodedPixels, metadata: ImageMetadata, orientation: ExifOrientation,
                sourceBitDepth: Int = 8, warnings: [String] = []) {
        self.content = content
        self.metadata = metadata
        self.orientation = orientation
        self.sourceBitDepth = sourceBitDepth
        self.warnings = warnings
    }
}
