internal import CJXL

/// Decodes JPEG XL files with libjxl to 8-bit RGB or RGBA (deeper samples are reduced to 8 bits by
/// libjxl, and `sourceBitDepth` says how deep they were): lossy, lossless and JPEG-recompressed files
/// (read as their pixels), the first frame of an animation (with a warning). libjxl applies the
/// codestream's orientation, so the picture is reported upright (`.up`) and an EXIF Orientation is not
/// applied a second time (OutputMetadata writes 1).
public struct JXLDecoder: ImageDecoding {
    public init() {}

    public func header(of file: [UInt8]) throws -> ImageHeader {
        let info = try JXLFile(file, maxPixels: .max, headerOnly: true)
        return ImageHeader(width: info.width, height: info.height, hasAlpha: info.hasAlpha)
    }

    public func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        // The first pass reads headers and boxes only, and refuses a picture over the cap from its basic info.
        let info = try JXLFile(file, maxPixels: options.maxPixels)
        let channels = info.hasAlpha ? 4 : 3
        let (count, overflow) = info.width.multipliedReportingOverflow(by: info.height * channels)
        guard !overflow else { throw ImagePrepError(.tooLarge, "\(info.width)x\(info.height) is too large to decode") }
        var pixels = [UInt8](repeating: 0, count: count)
        try LibraryChatter.quieted {
            try pixels.withUnsafeMutableBufferPointer { try Self.decodeFirstFrame(file, into: $0, info: info, channels: channels, threads: options.threads) }
        }
        var warnings = info.warnings
        if info.animated && info.frames > 1 {
            let dropped = info.frames - 1
            warnings.append("an animated JPEG XL (\(info.frames) frames): converted the first frame; \(dropped) frame\(dropped == 1 ? "" : "s") dropped")
        }
        if info.floatSamples || info.bitsPerSample > 8 {
            warnings.append("the JPEG XL file has \(info.bitsPerSample)-bit\(info.floatSamples ? " floating-point" : "") samples: decoded to 8 bits")
        }
        return DecodedImage(pixels: PixelBuffer(width: info.width, height: info.height, channels: channels, pixels: pixels),
                            metadata: info.metadata, orientation: .up, sourceBitDepth: info.bitsPerSample, warnings: warnings)
    }

    /// The first frame, upright and composited, straight into `buffer` (sized from the first pass).
    private static func decodeFirstFrame(_ file: [UInt8], into buffer: UnsafeMutableBufferPointer<UInt8>, info: JXLFile,
                                         channels: Int, threads: Int) throws {
        let handle = try JXLDecoderHandle(threads: threads)
        let decoder = handle.decoder
        try handle.check(JxlDecoderSubscribeEvents(decoder, Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue)), "subscribing to events")
        try handle.check(JxlDecoderSetKeepOrientation(decoder, JXL_FALSE), "asking for upright pixels")
        try handle.check(JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE), "asking for straight alpha")
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        try file.withUnsafeBufferPointer { input in
            try handle.check(JxlDecoderSetInput(decoder, input.baseAddress, input.count), "reading the input")
            // Input left open: a cut file then ends in NEED_MORE_INPUT ("truncated") rather than an error libjxl also prints.
            while true {
                switch JxlDecoderProcessInput(decoder) {
                case JXL_DEC_BASIC_INFO:
                    // The same file as the first pass: the same size, or the buffer would not fit.
                    var basic = JxlBasicInfo()
                    try handle.check(JxlDecoderGetBasicInfo(decoder, &basic), "reading the basic info")
                    let swaps = basic.orientation.rawValue > 4
                    guard Int(swaps ? basic.ysize : basic.xsize) == info.width, Int(swaps ? basic.xsize : basic.ysize) == info.height else {
                        throw ImagePrepError.library("libjxl", "the picture's size changed between two reads")
                    }
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    var size = 0
                    try handle.check(JxlDecoderImageOutBufferSize(decoder, &format, &size), "sizing the picture")
                    guard size == buffer.count else {
                        throw ImagePrepError.library("libjxl", "the picture needs \(size) bytes, not the \(buffer.count) its size gives")
                    }
                    try handle.check(JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count), "setting the picture's buffer")
                case JXL_DEC_FULL_IMAGE:
                    return   // the first frame: an animation's others are not decoded
                case JXL_DEC_SUCCESS:
                    throw ImagePrepError.library("libjxl", "the file holds no picture")
                case JXL_DEC_NEED_MORE_INPUT:
                    throw ImagePrepError.library("libjxl", "the file is truncated")
                default:
                    throw ImagePrepError.library("libjxl", "the picture data is damaged")
                }
            }
        }
    }
}
