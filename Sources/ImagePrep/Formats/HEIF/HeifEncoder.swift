import CHeif
import CImageCodecs

/// Encodes RGB or RGBA pixels to AVIF (AV1, libaom) or HEIC (HEVC, x265) through libheif: 8-bit,
/// alpha as an auxiliary image, the ICC profile as `colr prof`, EXIF and XMP as metadata items, and no
/// `irot`/`imir` (the pixels are upright). The Y'CbCr is BT.601, full range, which the bitstream
/// records: libheif converts interleaved pixels itself, and planes are converted here the way it would.
public struct HeifEncoder: ImageEncoding {
    public enum Codec: Sendable, Equatable {
        case av1, hevc
    }

    public var codec: Codec
    /// Chroma resolution of the Y'CbCr the encoder compresses.
    public var subsampling: ChromaSubsampling
    /// Threads one encode may use (x265's thread pool; libaom always runs on `aomThreads`).
    public var threads: Int

    /// libaom's speed, 0 (slowest) ... 9 (AV1 only).
    public var aomSpeed: Int

    public init(codec: Codec, subsampling: ChromaSubsampling = .s420, threads: Int = 1, aomSpeed: Int = HeifEncoder.defaultAOMSpeed) {
        self.codec = codec
        self.subsampling = subsampling
        self.threads = threads
        self.aomSpeed = aomSpeed
    }

    /// libaom's speed when none is given: 6 is libheif's and avifenc's default, and the fastest within 3%
    /// of the fewest bytes at a score; docs/formats.md has the measurements.
    public static let defaultAOMSpeed = 6
    /// libaom's threads, whatever the batch gives the picture: libaom 3.6 through libheif 1.15 writes other
    /// bytes with one thread than with two, and the same with any number from 2 to 16 (corpus photos,
    /// heif-enc -p threads=N). A constant keeps the bytes off the core count, and the second thread takes
    /// a core that would idle at the end of a batch, when one file is left.
    static let aomThreads = 2
    #if IMGPREP_TEST_HOOKS
    /// `aomThreads`, but for the test that checks the claim above on this machine's libaom.
    var aomThreadsForTesting = HeifEncoder.aomThreads
    /// Hands libheif RGB planes to convert itself, for the test that our conversion writes the same bytes.
    var libheifConvertsPlanesForTesting = false
    private var aomThreadCount: Int { aomThreadsForTesting }
    private var convertsPlanesItself: Bool { !libheifConvertsPlanesForTesting }
    #else
    // Test hooks only in test builds (`-D IMGPREP_TEST_HOOKS`, see TestStall).
    private var aomThreadCount: Int { Self.aomThreads }
    private var convertsPlanesItself: Bool { true }
    #endif
    /// x265's preset: libheif picks "slow"; "medium" is under half the time for about 4% more bytes.
    static let x265Preset = "medium"

    public var format: OutputFormat { codec == .av1 ? .avif : .heic }
    /// 4:2:0 planes go to libheif as they are, in the layout it describes by default (BT.601, full range).
    public var ycbcrLayout: YCbCrLayout? { subsampling == .s420 && convertsPlanesItself ? .jfif : nil }
    /// x265 spreads one picture over its pool with the same bytes; libaom's thread count is fixed (it
    /// would change the bytes), so AV1 trials run side by side instead.
    public var runsTrialsSideBySide: Bool { codec == .av1 }
    /// libheif's Y'CbCr copy plus the encoder's reference and analysis buffers: a worker peaked at 21.7
    /// bytes per pixel for AVIF and 18.4 for HEIC, at 12 MP and at 200 MP alike, of which the decode is 8.
    public var workingBytesPerPixel: Int { codec == .av1 ? 14 : 11 }

    public func metadataBytes(_ metadata: ImageMetadata) -> Int {
        // Each block plus its item entries (infe, iloc) and references; EXIF gets a 4-byte offset.
        let blocks = [metadata.exif.map { $0.count + 4 }, metadata.xmp?.count].compactMap { $0 }
        return blocks.reduce(0) { $0 + $1 + 48 } + (metadata.icc.map { $0.count + 12 } ?? 0)
    }

    public func encode(_ picture: DecodedPixels, quality: Int, metadata: ImageMetadata) throws -> [UInt8] {
        precondition((1...100).contains(quality), "quality must be 1...100")
        if codec == .hevc, min(picture.width, picture.height) < 16 {
            throw ImagePrepError(.unsupported, "HEIC output needs at least 16x16 pixels (x265's smallest block); this picture is \(picture.width)x\(picture.height)")
        }
        try LibHeif.load()
        let image = try HeifInputImage(picture, subsampling: convertsPlanesItself ? subsampling : nil)
        if let icc = metadata.icc, !icc.isEmpty {
            try check(heif_image_set_raw_color_profile(image.pointer, "prof", icc, icc.count), "cannot attach the ICC profile", otherwise: .unsupported)
        }

        guard let context = heif_context_alloc() else { throw ImagePrepError.library("libheif", "out of memory", kind: .io) }
        defer { heif_context_free(context) }
        var encoderPointer: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, codec == .av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoderPointer),
                  "no \(codec == .av1 ? "AV1" : "HEVC") encoder", otherwise: .unsupported)
        guard let encoder = encoderPointer else { throw ImagePrepError.library("libheif", "no encoder", kind: .unsupported) }
        defer { heif_encoder_release(encoder) }
        try configure(encoder, quality: quality)

        guard let options = heif_encoding_options_alloc() else { throw ImagePrepError.library("libheif", "out of memory", kind: .io) }
        defer { heif_encoding_options_free(options) }
        options.pointee.save_alpha_channel = 1
        options.pointee.image_orientation = heif_orientation_normal

        var handlePointer: OpaquePointer?
        try check(heif_context_encode_image(context, image.pointer, encoder, options, &handlePointer), "cannot encode", otherwise: .unsupported)
        guard let handle = handlePointer else { throw ImagePrepError.library("libheif", "encoder returned no image", kind: .unsupported) }
        defer { heif_image_handle_release(handle) }
        if let exif = metadata.exif, !exif.isEmpty {
            // libheif finds the TIFF header and writes the 4-byte offset in front itself.
            try check(heif_context_add_exif_metadata(context, handle, exif, Int32(exif.count)), "cannot add the EXIF block", otherwise: .unsupported)
        }
        if let xmp = metadata.xmp, !xmp.isEmpty {
            try check(heif_context_add_XMP_metadata(context, handle, xmp, Int32(xmp.count)), "cannot add the XMP packet", otherwise: .unsupported)
        }
        return try Self.write(context)
    }

    private func configure(_ encoder: OpaquePointer, quality: Int) throws {
        func set(_ name: String, _ value: String) throws {
            try check(heif_encoder_set_parameter_string(encoder, name, value), "encoder parameter \(name)=\(value)", otherwise: .unsupported)
        }
        func set(_ name: String, _ value: Int) throws {
            try check(heif_encoder_set_parameter_integer(encoder, name, Int32(value)), "encoder parameter \(name)=\(value)", otherwise: .unsupported)
        }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(quality)), "quality \(quality)", otherwise: .unsupported)
        let chroma = switch subsampling { case .s420: "420"; case .s422: "422"; case .s444: "444" }
        try set("chroma", chroma)
        switch codec {
        case .av1:
            try set("speed", aomSpeed)
            try set("threads", aomThreadCount)
        case .hevc:
            try set("preset", Self.x265Preset)
            try set("x265:pools", String(max(1, threads)))
            try set("x265:frame-threads", "1")   // one picture: a second frame thread only holds memory
        }
    }

    /// The finished file, collected from libheif's writer callback.
    private static func write(_ context: OpaquePointer) throws -> [UInt8] {
        let sink = ByteSink()
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            guard let userdata else {
                return heif_error(code: heif_error_Usage_error, subcode: heif_suberror_Null_pointer_argument, message: writeFailed.cString)
            }
            let sink = Unmanaged<ByteSink>.fromOpaque(userdata).takeUnretainedValue()
            if let data, size > 0 { sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: success.cString)
        })
        try withExtendedLifetime(sink) {
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()), "cannot write the file", otherwise: .unsupported)
        }
        guard !sink.bytes.isEmpty else { throw ImagePrepError.library("libheif", "wrote no data", kind: .unsupported) }
        return sink.bytes
    }
}

/// Bytes libheif's writer callback appends to (one encode, one thread).
private final class ByteSink {
    var bytes: [UInt8] = []
}

/// Messages for heif_error values we hand back to libheif: they must outlive the call.
private let success: StaticString = "Success"
private let writeFailed: StaticString = "no output buffer"

private extension StaticString {
    var cString: UnsafePointer<CChar> { UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self) }
}

/// A libheif image holding our pixels: planes as the Y'CbCr the encoder takes, converted as libheif
/// would (or, without `subsampling`, as RGB planes for libheif to convert), interleaved RGB(A) as they
/// are (libheif converts them).
private final class HeifInputImage {
    let pointer: OpaquePointer

    init(_ picture: DecodedPixels, subsampling: ChromaSubsampling?) throws {
        let (width, height) = (picture.width, picture.height)
        if case .ycbcr420(let source) = picture, subsampling == .s420 {
            pointer = try Self.ycbcrImage(source.converted(to: .jfif))
            return
        }
        let planes: RGBPlanes?, interleaved: PixelBuffer?
        switch picture {
        case .rgbPlanes(let image): (planes, interleaved) = (image, nil)
        default: (planes, interleaved) = (nil, picture.rgb())
        }
        // Planes go in as the Y'CbCr the encoder takes: its chroma, and how many pixels one chroma sample spans.
        let ycbcr: (chroma: heif_chroma, across: Int, down: Int)? = switch (planes != nil, subsampling) {
        case (true, .s420): (heif_chroma_420, 2, 2)
        case (true, .s422): (heif_chroma_422, 2, 1)
        case (true, .s444): (heif_chroma_444, 1, 1)
        case (true, nil), (false, _): nil
        }
        let (colourSpace, chroma) = if let ycbcr { (heif_colorspace_YCbCr, ycbcr.chroma) }
            else if planes != nil { (heif_colorspace_RGB, heif_chroma_444) }
            else { (heif_colorspace_RGB, interleaved?.hasAlpha == true ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB) }
        var created: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), colourSpace, chroma, &created), "cannot create the image", otherwise: .unsupported)
        guard let created else { throw ImagePrepError.library("libheif", "out of memory", kind: .io) }
        pointer = created

        func addPlane(_ channel: heif_channel, width: Int = width, height: Int = height) throws -> (base: UnsafeMutablePointer<UInt8>, stride: Int) {
            try check(heif_image_add_plane(pointer, channel, Int32(width), Int32(height), 8), "cannot add a plane", otherwise: .io)
            var stride: Int32 = 0
            guard let base = heif_image_get_plane(pointer, channel, &stride) else {
                throw ImagePrepError.library("libheif", "image has no plane", kind: .io)
            }
            return (base, Int(stride))
        }
        if let planes, let ycbcr {
            // libheif's own conversion, in vector C (CImageCodecs): the same samples in a ninth of the instructions.
            let (h, v) = (ycbcr.across, ycbcr.down)
            let luma = try addPlane(heif_channel_Y)
            let blue = try addPlane(heif_channel_Cb, width: (width + h - 1) / h, height: (height + v - 1) / v)
            let red = try addPlane(heif_channel_Cr, width: (width + h - 1) / h, height: (height + v - 1) / v)
            let (r, g, b) = (planes.planes.planes[0], planes.planes.planes[1], planes.planes.planes[2])
            withExtendedLifetime(planes.planes) {
                cic_rgb_planes_to_ycbcr(r.row(0), r.stride, g.row(0), g.stride, b.row(0), b.stride, Int32(width), Int32(height),
                                        Int32(h), Int32(v), luma.base, luma.stride, blue.base, blue.stride, red.base, red.stride)
            }
            // What libheif gives the image it converts (its default profile), which the encoders read.
            try Self.setDefaultNCLX(on: pointer)
        } else if let planes {
            for (index, channel) in [heif_channel_R, heif_channel_G, heif_channel_B].enumerated() {
                let plane = try addPlane(channel), source = planes.planes.planes[index]
                withExtendedLifetime(planes.planes) {
                    for y in 0..<height { (plane.base + y * plane.stride).update(from: source.row(y), count: width) }
                }
            }
        } else if let interleaved {
            let plane = try addPlane(heif_channel_interleaved)
            interleaved.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<height {
                    // A non-empty picture's buffer always has a base address.
                    (plane.base + y * plane.stride).update(from: pixels.baseAddress! + y * interleaved.rowBytes, count: interleaved.rowBytes)
                }
            }
        }
    }

    /// A libheif Y'CbCr 4:2:0 image holding a copy of `source`'s planes (JFIF's layout, libheif's default).
    private static func ycbcrImage(_ source: YCbCr420Image) throws -> OpaquePointer {
        var created: OpaquePointer?
        try check(heif_image_create(Int32(source.width), Int32(source.height), heif_colorspace_YCbCr, heif_chroma_420, &created),
                  "cannot create the image", otherwise: .unsupported)
        guard let image = created else { throw ImagePrepError.library("libheif", "out of memory", kind: .io) }
        do {
            let chroma = ((source.width + 1) / 2, (source.height + 1) / 2)
            let planes = [(heif_channel_Y, source.luma, (source.width, source.height)),
                          (heif_channel_Cb, source.cb, chroma), (heif_channel_Cr, source.cr, chroma)]
            for (channel, plane, size) in planes {
                try check(heif_image_add_plane(image, channel, Int32(size.0), Int32(size.1), 8), "cannot add a plane", otherwise: .io)
                var stride: Int32 = 0
                guard let base = heif_image_get_plane(image, channel, &stride) else {
                    throw ImagePrepError.library("libheif", "image has no plane", kind: .io)
                }
                withExtendedLifetime(source.planes) {
                    for y in 0..<size.1 { (base + y * Int(stride)).update(from: plane.row(y), count: size.0) }
                }
            }
            try setDefaultNCLX(on: image)
        } catch {
            heif_image_release(image)
            throw error
        }
        return image
    }

    /// libheif's profile for an image that has none (heif_nclx_color_profile_alloc's values: primaries and
    /// transfer unspecified, BT.601, full range): the encoders write it into the bitstream.
    private static func setDefaultNCLX(on image: OpaquePointer) throws {
        guard let profile = heif_nclx_color_profile_alloc() else { throw ImagePrepError.library("libheif", "out of memory", kind: .io) }
        defer { heif_nclx_color_profile_free(profile) }
        try check(heif_image_set_nclx_color_profile(image, profile), "cannot set the colour description", otherwise: .unsupported)
    }

    deinit { heif_image_release(pointer) }
}

extension HeifEncoder {
    /// What AVIF and HEIC share: libheif 1.15 writes EXIF and XMP items and the colr box (the default
    /// blocks; HEIF has no item type readers agree on for IPTC), and alpha as an auxiliary image.
    static func traits(sizeModel: SizeModel, scoreModel: ScoreModel) -> FormatTraits {
        var traits = FormatTraits(sizeModel: sizeModel)
        traits.scoreModel = scoreModel
        traits.subsamplesChroma = true
        return traits
    }
}
