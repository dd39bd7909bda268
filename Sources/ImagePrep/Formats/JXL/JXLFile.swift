internal import CJXL

/// What libjxl tells of a JPEG XL file without decoding a pixel: the basic info, the colour profile of the
/// pixels it hands back, the frames; and the container's metadata boxes (JXLMetadataBoxes). Refuses a picture over `maxPixels` as soon as the basic info
/// is read, before anything else is done.
struct JXLFile {
    /// The size libjxl hands back: the codestream's orientation applied.
    var width = 0
    var height = 0
    var bitsPerSample = 8
    var floatSamples = false
    var hasAlpha = false
    var isGray = false
    /// The codestream's orientation (1...8), applied by libjxl when decoding.
    var orientation = 1
    var frames = 0
    var animated = false
    /// Lossless coding of the original colours (no XYB): true for lossless and JPEG-recompressed files.
    var usesOriginalProfile = false
    /// A `jbrd` box: the file holds what rebuilds the original JPEG byte for byte.
    var hasJPEGReconstruction = false
    /// nil ICC when the pixels are sRGB (libjxl describes them by code points, not a profile).
    var metadata = ImageMetadata()
    /// The first `Exif` box's payload as stored (its TIFF-header offset first), decompressed.
    var exifBox: [UInt8]?
    var warnings: [String] = []

    /// Metadata boxes larger than this are left out with a warning (no photo's EXIF or XMP comes close).
    static let maxBoxBytes = 16 << 20
    /// A larger ICC profile is left out with a warning.
    static let maxProfileBytes = 16 << 20

    /// - Parameter headerOnly: stop at the basic info (the size, for `ImageDecoding.header`).
    init(_ file: [UInt8], maxPixels: Int, headerOnly: Bool = false) throws {
        try LibraryChatter.quieted { try read(file, maxPixels: maxPixels, headerOnly: headerOnly) }
        if headerOnly { return }
        // The metadata boxes are read in Swift (JXLMetadataBoxes), after the picture's checks passed.
        let boxes = JXLMetadataBoxes(file, limit: Self.maxBoxBytes)
        warnings += boxes.warnings
        hasJPEGReconstruction = boxes.hasJPEGReconstruction
        exifBox = boxes.exifBox
        metadata.exif = boxes.exifBox.flatMap { Self.tiff(fromExifBox: $0, warnings: &warnings) }
        metadata.xmp = boxes.xmp
    }

    private mutating func read(_ file: [UInt8], maxPixels: Int, headerOnly: Bool) throws {
        let handle = try JXLDecoderHandle(threads: 1)
        let decoder = handle.decoder
        let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue)
        try handle.check(JxlDecoderSubscribeEvents(decoder, events), "subscribing to events")
        try handle.check(JxlDecoderSetKeepOrientation(decoder, JXL_FALSE), "asking for upright pixels")
        try file.withUnsafeBufferPointer { input in
            try handle.check(JxlDecoderSetInput(decoder, input.baseAddress, input.count), "reading the input")
            // Input left open until a frame was seen: a file cut before then ends in NEED_MORE_INPUT ("truncated");
            // after it, closing lets the last box end at the file's end.
            var closed = false
            loop: while true {
                let status = JxlDecoderProcessInput(decoder)
                switch status {
                case JXL_DEC_BASIC_INFO:
                    try readBasicInfo(handle, maxPixels: maxPixels)
                    if headerOnly { return }
                case JXL_DEC_COLOR_ENCODING:
                    readColour(handle)
                case JXL_DEC_FRAME:
                    frames += 1
                case JXL_DEC_SUCCESS:
                    break loop
                case JXL_DEC_NEED_MORE_INPUT where !closed && frames > 0:
                    JxlDecoderCloseInput(decoder)
                    closed = true
                case JXL_DEC_NEED_MORE_INPUT:
                    throw ImagePrepError.library("libjxl", "the file is truncated")
                default:
                    throw ImagePrepError.library("libjxl", closed ? "the file is truncated or damaged" : "the file is damaged or not a JPEG XL image libjxl 0.7 reads")
                }
            }
        }
        guard width > 0, headerOnly || frames > 0 else { throw ImagePrepError.library("libjxl", "the file holds no picture") }
    }

    private mutating func readBasicInfo(_ handle: JXLDecoderHandle, maxPixels: Int) throws {
        var info = JxlBasicInfo()
        try handle.check(JxlDecoderGetBasicInfo(handle.decoder, &info), "reading the basic info")
        orientation = Int(info.orientation.rawValue)
        let swaps = orientation > 4
        width = Int(swaps ? info.ysize : info.xsize)
        height = Int(swaps ? info.xsize : info.ysize)
        // The decompression-bomb check comes before any other work on the file.
        try ImageHeader(width: width, height: height).check(maxPixels: maxPixels)
        bitsPerSample = Int(info.bits_per_sample)
        floatSamples = info.exponent_bits_per_sample > 0
        hasAlpha = info.alpha_bits > 0
        isGray = info.num_color_channels == 1
        animated = info.have_animation != 0
        usesOriginalProfile = info.uses_original_profile != 0
    }

    /// The profile of the pixels libjxl hands back; none when they are plain sRGB.
    private mutating func readColour(_ handle: JXLDecoderHandle) {
        let decoder = handle.decoder
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
           Self.isSRGB(encoding) {
            return
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS, size > 0 else { return }
        guard size <= Self.maxProfileBytes else {
            warnings.append("the JPEG XL file's ICC profile is over \(Self.maxProfileBytes >> 20) MB and was left out")
            return
        }
        var profile = [UInt8](repeating: 0, count: size)
        let status = profile.withUnsafeMutableBufferPointer {
            JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, $0.baseAddress, $0.count)
        }
        guard status == JXL_DEC_SUCCESS else { return }
        // libjxl hands gray pictures back as RGB (JXLDecoder asks for 3 or 4 channels): a gray profile goes.
        metadata.setICC(profile, for: [.rgb], warnings: &warnings)
    }

    private static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        let white = encoding.white_point == JXL_WHITE_POINT_D65
        let transfer = encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
        let intentOK = encoding.rendering_intent == JXL_RENDERING_INTENT_PERCEPTUAL || encoding.rendering_intent == JXL_RENDERING_INTENT_RELATIVE
        switch encoding.color_space {
        case JXL_COLOR_SPACE_RGB: return white && transfer && intentOK && encoding.primaries == JXL_PRIMARIES_SRGB
        case JXL_COLOR_SPACE_GRAY: return white && transfer && intentOK   // expanded to sRGB's gray axis
        default: return false
        }
    }

    /// The TIFF block of an `Exif` box: a 4-byte big-endian offset to the TIFF header comes first.
    static func tiff(fromExifBox box: [UInt8], warnings: inout [String]) -> [UInt8]? {
        guard box.count > 4 else {
            warnings.append("the JPEG XL file's Exif box is too short and was left out")
            return nil
        }
        let offset = UInt64(box[0]) << 24 | UInt64(box[1]) << 16 | UInt64(box[2]) << 8 | UInt64(box[3])
        let start = 4 + Int(offset)   // offset < 2^32: no overflow
        guard offset < UInt64(box.count), start + 8 <= box.count else {
            warnings.append("the JPEG XL file's Exif box points past its end and was left out")
            return nil
        }
        let tiff = Array(box[start...])
        guard tiff.starts(with: [0x49, 0x49, 0x2A, 0x00]) || tiff.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) else {
            warnings.append("the JPEG XL file's Exif box holds no TIFF header and was left out")
            return nil
        }
        return tiff
    }
}
