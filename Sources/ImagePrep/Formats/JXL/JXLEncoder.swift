internal import CJXL
import Foundation

/// Encodes RGB or RGBA pixels to JPEG XL with libjxl: lossy (XYB, at the butteraugli distance cjxl 0.7
/// gives `--quality`) or, with `--lossless`, exact pixels. EXIF goes in an `Exif` box (after the 4-byte
/// TIFF-header offset, 0) and XMP in an `xml ` box, both uncompressed: exiftool 12.57 cannot read `brob`
/// boxes. Colours: lossy, a profile that a colour encoding describes is stated as that encoding (see
/// JXLColourEncoding); otherwise the ICC profile goes in the codestream (none: the pixels are declared sRGB).
public struct JXLEncoder: ImageEncoding {
    public var lossless: Bool
    /// libjxl's effort (1 fastest ... 9 smallest).
    public var effort: Int
    /// More than 1 lets libjxl work on several groups of the picture at once (the bytes do not change).
    public var threads: Int

    public init(lossless: Bool = false, effort: Int = JXLDefaults.effort, threads: Int = 1) {
        self.lossless = lossless
        self.effort = effort
        self.threads = threads
    }

    public var format: OutputFormat { .jxl }
    public var traits: FormatTraits { lossless ? JXLFormatWriter().traits.lossless : JXLFormatWriter().traits }
    /// libjxl keeps the picture as float planes (12 bytes per pixel) and more beside them: see docs/formats.md.
    public var workingBytesPerPixel: Int { JXLDefaults.workingBytesPerPixel }

    public func metadataBytes(_ metadata: ImageMetadata) -> Int {
        let boxes = [metadata.exif.map { $0.count + 4 }, metadata.xmp.map(\.count)].compactMap { $0 }
        // The container's signature and ftyp box (32 bytes) and the codestream box's header, then each box.
        let container = boxes.isEmpty ? 0 : 40 + boxes.reduce(0) { $0 + 8 + $1 }
        return container + (metadata.icc?.count ?? 0)
    }

    /// cjxl 0.7's mapping of `-q` to a distance (tools/cjxl_main.cc): 100 is lossless.
    public static func distance(quality: Int) -> Float {
        let q = Double(min(max(quality, 1), 100))
        if q >= 100 { return 0 }
        // libjxl refuses distances above 25 (qualities 1-4 here).
        return Float(min(q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25, 25))
    }

    public func encode(_ picture: DecodedPixels, quality: Int, metadata: ImageMetadata) throws -> [UInt8] {
        let image = picture.rgb()
        let handle = try JXLEncoderHandle(threads: threads)
        let encoder = handle.encoder
        let exactly = lossless || quality >= 100
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        guard let width = UInt32(exactly: image.width), let height = UInt32(exactly: image.height) else {
            throw ImagePrepError(.unsupported, "the picture is too large for JPEG XL")
        }
        info.xsize = width
        info.ysize = height
        info.bits_per_sample = 8
        info.num_color_channels = 3
        if image.hasAlpha {
            info.alpha_bits = 8
            info.num_extra_channels = 1
        }
        info.uses_original_profile = exactly ? JXL_TRUE : JXL_FALSE
        try handle.check(JxlEncoderSetBasicInfo(encoder, &info), "cannot set the picture's size")
        if let icc = metadata.icc, !icc.isEmpty, !exactly, let colorimetry = ProfileColorimetry.of(icc) {
            var colour = colorimetry.jxlEncoding
            try handle.check(JxlEncoderSetColorEncoding(encoder, &colour), "cannot declare the profile's colours")
        } else if let icc = metadata.icc, !icc.isEmpty {
            try icc.withUnsafeBufferPointer { try handle.check(JxlEncoderSetICCProfile(encoder, $0.baseAddress, $0.count), "cannot add the ICC profile") }
        } else {
            var colour = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&colour, JXL_FALSE)
            try handle.check(JxlEncoderSetColorEncoding(encoder, &colour), "cannot declare sRGB")
        }
        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else { throw handle.error("cannot create the frame settings") }
        try handle.check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), "cannot set the effort")
        if exactly {
            try handle.check(JxlEncoderSetFrameDistance(settings, 0), "cannot set the distance")
            try handle.check(JxlEncoderSetFrameLossless(settings, JXL_TRUE), "cannot choose lossless")
        } else {
            try handle.check(JxlEncoderSetFrameDistance(settings, Self.distance(quality: quality)), "cannot set the distance")
        }
        try Self.addBoxes(metadata, to: handle)
        var format = JxlPixelFormat(num_channels: UInt32(image.channels), data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        try image.pixels.withUnsafeBufferPointer { pixels in
            try handle.check(JxlEncoderAddImageFrame(settings, &format, pixels.baseAddress, pixels.count), "cannot encode the picture")
        }
        JxlEncoderCloseInput(encoder)
        return try Self.output(of: handle)
    }

    /// EXIF and XMP boxes, uncompressed.
    static func addBoxes(_ metadata: ImageMetadata, to handle: JXLEncoderHandle) throws {
        let boxes: [(String, [UInt8])] = [("Exif", metadata.exif.map { [0, 0, 0, 0] + $0 }), ("xml ", metadata.xmp)]
            .compactMap { type, bytes in bytes.flatMap { $0.isEmpty ? nil : (type, $0) } }
        guard !boxes.isEmpty else { return }
        try handle.check(JxlEncoderUseBoxes(handle.encoder), "cannot add metadata boxes")
        for (type, bytes) in boxes {
            let name = Array(type.utf8).map { CChar(bitPattern: $0) }
            try bytes.withUnsafeBufferPointer { payload in
                try name.withUnsafeBufferPointer { typePointer in
                    try handle.check(JxlEncoderAddBox(handle.encoder, typePointer.baseAddress, payload.baseAddress, payload.count, JXL_FALSE),
                                     "cannot add the \(type.trimmingCharacters(in: .whitespaces)) box")
                }
            }
        }
    }

    /// Everything the encoder writes once its input is closed.
    static func output(of handle: JXLEncoderHandle) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 64 << 10)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(handle.encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            switch status {
            case JXL_ENC_SUCCESS:
                return Array(output.prefix(written))
            case JXL_ENC_NEED_MORE_OUTPUT:
                output += [UInt8](repeating: 0, count: output.count)
            default:
                throw handle.error("cannot encode")
            }
        }
    }
}

extension JXLEncoder {
    /// A JPEG's coefficients, with the `jbrd` box that rebuilds the file byte for byte. libjxl adds the
    /// JPEG's EXIF and XMP as brotli-compressed `brob` boxes (reconstruction reads them back from there);
    /// they are then rewritten as plain boxes so that exiftool 12.57 reads them (JXLBoxes.uncompressed).
    static func recompress(_ jpeg: [UInt8], effort: Int, threads: Int) throws -> [UInt8] {
        let handle = try JXLEncoderHandle(threads: threads)
        try handle.check(JxlEncoderStoreJPEGMetadata(handle.encoder, JXL_TRUE), "cannot keep the JPEG's reconstruction data")
        guard let settings = JxlEncoderFrameSettingsCreate(handle.encoder, nil) else { throw handle.error("cannot create the frame settings") }
        try handle.check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), "cannot set the effort")
        try jpeg.withUnsafeBufferPointer { bytes in
            // libjxl prints its reasons for a JPEG it cannot take; the note that follows says it once.
            try handle.check(LibraryChatter.quieted { JxlEncoderAddJPEGFrame(settings, bytes.baseAddress, bytes.count) }, "cannot recompress the JPEG")
        }
        JxlEncoderCloseInput(handle.encoder)
        return try JXLBoxes.uncompressed(try output(of: handle))
    }
}
