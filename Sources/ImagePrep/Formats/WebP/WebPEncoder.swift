internal import CWebP

/// Encodes RGB or RGBA pixels to WebP with libwebp (lossy VP8 with a lossless alpha plane, or lossless
/// VP8L), then adds the metadata as ICCP, EXIF and XMP chunks of an extended (VP8X) file with libwebpmux.
/// EXIF is a bare TIFF block, as the WebP container specifies; the pixels are upright, so its
/// Orientation is 1 (browsers ignore EXIF Orientation in WebP anyway).
public struct WebPEncoder: ImageEncoding {
    /// VP8L instead of VP8: every pixel kept; `quality` then only trades encoding time for size.
    public var lossless: Bool
    /// More than 1 lets libwebp analyse and filter on a second thread (the bytes do not change).
    public var threads: Int

    public init(lossless: Bool = false, threads: Int = 1) {
        self.lossless = lossless
        self.threads = threads
    }

    /// WebP stores each side in 14 bits.
    public static let maxDimension = 16383

    public var format: OutputFormat { .webp }
    public var traits: FormatTraits { lossless ? WebPFormatWriter().traits.lossless : WebPFormatWriter().traits }
    /// libwebp's Y'UV copy of the picture (1.5 bytes per pixel) and its token buffers: a worker peaked at
    /// 7.6-8.2 bytes per pixel in all, at 12 MP and 200 MP.
    public var workingBytesPerPixel: Int { 2 }
    /// The lossy coder's own Y'UV (BT.601, limited range): 4:2:0 planes are copied in, not converted from RGB.
    public var ycbcrLayout: YCbCrLayout? { lossless ? nil : .webp }

    public func metadataBytes(_ metadata: ImageMetadata) -> Int {
        let blocks = [metadata.icc, metadata.exif, metadata.xmp].compactMap { $0 }.filter { !$0.isEmpty }
        guard !blocks.isEmpty else { return 0 }
        // The VP8X chunk (8 + 10 bytes), then each chunk's header and padding to an even size.
        return 18 + blocks.reduce(0) { $0 + 8 + $1.count + $1.count % 2 }
    }

    public func encode(_ picture: DecodedPixels, quality: Int, metadata: ImageMetadata) throws -> [UInt8] {
        guard picture.width <= Self.maxDimension, picture.height <= Self.maxDimension else {
            throw ImagePrepError(.unsupported,
                "WebP holds at most \(Self.maxDimension) pixels per side; this picture is \(picture.width)x\(picture.height) (try --max-dimension \(Self.maxDimension))")
        }
        if case .animation(let animation) = picture {
            return try AnimatedWebPEncoder(quality: quality, lossless: lossless, threads: threads, strategy: .standard)
                .encode(animation, metadata: metadata)
        }
        let bitstream = if case .ycbcr420(let planes) = picture, !lossless {
            try encodeBitstream(quality: quality) { try Self.load(planes.converted(to: .webp), into: &$0) }
        } else {
            try encodeBitstream(quality: quality) { [lossless] in try Self.load(picture.rgb(), argb: lossless, into: &$0) }
        }
        return try Self.mux(bitstream, metadata: metadata)
    }

    /// The encoder settings for stills and animation frames alike.
    static func config(quality: Int, lossless: Bool, threads: Int) throws -> WebPConfig {
        precondition((1...100).contains(quality), "WebP quality must be 1...100")
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch", kind: .unsupported) }
        config.lossless = lossless ? 1 : 0
        // Lossy: cwebp's own defaults (method 4). Lossless: quality 75 is cwebp's default effort.
        config.quality = lossless ? 75 : Float(quality)
        config.method = 4
        config.thread_level = threads > 1 ? 1 : 0
        guard WebPValidateConfig(&config) != 0 else {
            throw ImagePrepError.library("libwebp", "invalid encoder settings", kind: .unsupported)
        }
        return config
    }

    /// The bare RIFF/VP8(L) file.
    private func encodeBitstream(quality: Int, load: (inout WebPPicture) throws -> Void) throws -> [UInt8] {
        var config = try Self.config(quality: quality, lossless: lossless, threads: threads)

        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImagePrepError.library("libwebp", "version mismatch", kind: .unsupported) }
        defer { WebPPictureFree(&picture) }
        try load(&picture)

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0 else { throw Self.encodeError(picture.error_code) }
        guard let memory = writer.mem, writer.size > 0 else {
            throw ImagePrepError.library("libwebp", "encoder returned no data", kind: .unsupported)
        }
        return Array(UnsafeBufferPointer(start: memory, count: writer.size))
    }

    /// Wraps the bitstream in a VP8X file with the metadata chunks; without metadata it stays as it is.
    static func mux(_ bitstream: [UInt8], metadata: ImageMetadata) throws -> [UInt8] {
        let chunks = metadataChunks(metadata)
        guard !chunks.isEmpty else { return bitstream }
        guard let mux = WebPMuxNew() else { throw ImagePrepError.library("libwebpmux", "out of memory", kind: .io) }
        defer { WebPMuxDelete(mux) }
        // copy_data 1: libwebpmux keeps its own copies, so no Swift buffer has to outlive a call.
        try bitstream.withUnsafeBufferPointer { bytes in
            var image = WebPData(bytes: bytes.baseAddress, size: bytes.count)
            try checkMux(WebPMuxSetImage(mux, &image, 1), "cannot add the picture")
        }
        return try assemble(mux, adding: chunks)
    }

    /// The metadata blocks a WebP file carries, as (chunk name, payload), in the order they are written.
    static func metadataChunks(_ metadata: ImageMetadata) -> [(String, [UInt8])] {
        [("ICCP", metadata.icc), ("EXIF", metadata.exif), ("XMP ", metadata.xmp)]
            .compactMap { name, bytes in bytes.flatMap { $0.isEmpty ? nil : (name, $0) } }
    }

    /// Adds `chunks` to the file in `mux` and writes it out.
    static func assemble(_ mux: OpaquePointer, adding chunks: [(String, [UInt8])]) throws -> [UInt8] {
        for (name, bytes) in chunks {
            try bytes.withUnsafeBufferPointer { payload in
                var data = WebPData(bytes: payload.baseAddress, size: payload.count)
                try checkMux(WebPMuxSetChunk(mux, name, &data, 1), "cannot add the \(name.trimmingCharacters(in: .whitespaces)) chunk")
            }
        }
        var assembled = WebPData()
        defer { WebPDataClear(&assembled) }
        try checkMux(WebPMuxAssemble(mux, &assembled), "cannot assemble the file")
        guard let bytes = assembled.bytes, assembled.size > 0 else {
            throw ImagePrepError.library("libwebpmux", "assembled no data", kind: .unsupported)
        }
        return Array(UnsafeBufferPointer(start: bytes, count: assembled.size))
    }

    private static func checkMux(_ error: WebPMuxError, _ what: String) throws {
        guard error != WEBP_MUX_OK else { return }
        let reason = switch error {
        case WEBP_MUX_NOT_FOUND: "not found"
        case WEBP_MUX_INVALID_ARGUMENT: "invalid argument"
        case WEBP_MUX_BAD_DATA: "bad data"
        case WEBP_MUX_MEMORY_ERROR: "out of memory"
        case WEBP_MUX_NOT_ENOUGH_DATA: "not enough data"
        default: "error \(error.rawValue)"
        }
        throw ImagePrepError.library("libwebpmux", "\(what): \(reason)", kind: .unsupported)
    }

    /// Copies `image` into an initialised `picture`, as ARGB (what the lossless coder and the animation
    /// encoder work on) or as Y'CbCr (the lossy coder's).
    static func load(_ image: PixelBuffer, argb: Bool, into picture: inout WebPPicture) throws {
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = argb ? 1 : 0
        let imported = image.pixels.withUnsafeBufferPointer { pixels in
            image.hasAlpha ? WebPPictureImportRGBA(&picture, pixels.baseAddress, Int32(image.rowBytes))
                           : WebPPictureImportRGB(&picture, pixels.baseAddress, Int32(image.rowBytes))
        }
        guard imported != 0 else { throw encodeError(picture.error_code) }
    }

    /// Copies 4:2:0 planes in libwebp's own layout into an initialised `picture`'s Y'UV.
    static func load(_ image: YCbCr420Image, into picture: inout WebPPicture) throws {
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = 0
        picture.colorspace = WEBP_YUV420
        guard WebPPictureAlloc(&picture) != 0, let y = picture.y, let u = picture.u, let v = picture.v else {
            throw encodeError(picture.error_code)
        }
        let chroma = ((image.width + 1) / 2, (image.height + 1) / 2)
        withExtendedLifetime(image.planes) {
            for row in 0..<image.height { (y + row * Int(picture.y_stride)).update(from: image.luma.row(row), count: image.width) }
            for row in 0..<chroma.1 {
                (u + row * Int(picture.uv_stride)).update(from: image.cb.row(row), count: chroma.0)
                (v + row * Int(picture.uv_stride)).update(from: image.cr.row(row), count: chroma.0)
            }
        }
    }

    /// The one place a libwebp encoder error becomes a Swift error.
    static func encodeError(_ code: WebPEncodingError) -> ImagePrepError {
        let reason = switch code {
        case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BAD_DIMENSION: "the picture's size is out of range"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW: "the first partition is over 512 KB (try a lower quality)"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: "a partition is over 16 MB (try a lower quality)"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "the file would be over 4 GB"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "invalid encoder settings"
        default: "error \(code.rawValue)"
        }
        return ImagePrepError.library("libwebp", "cannot encode: \(reason)", kind: code == VP8_ENC_ERROR_OUT_OF_MEMORY ? .io : .unsupported)
    }
}

extension YCbCrLayout {
    /// What libwebp's lossy coder stores (BT.601, limited range, chroma between the columns).
    static let webp = YCbCrLayout(matrix: .bt601, range: .limited, siting: .centred)
}
