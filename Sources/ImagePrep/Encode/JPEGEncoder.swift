import CImageCodecs

/// How a JPEG is encoded, apart from its quality.
public struct JPEGSettings: Sendable, Equatable {
    /// Chroma resolution: .s420 halves it both ways (smallest files), .s444 keeps it all.
    public enum Subsampling: Sendable, Equatable { case s420, s422, s444 }

    public var subsampling: Subsampling
    /// Optimal Huffman tables: a few percent smaller for an extra pass over the coefficients.
    public var optimizeHuffman: Bool
    /// Progressive scans (always with optimal Huffman tables).
    public var progressive: Bool
    /// Write the JFIF APP0 header right after SOI.
    public var writeJFIF: Bool
    /// Quantization tables transposed. A JPEG source turned by 90° then has its 8x8 blocks requantized
    /// exactly as they would be unturned (libjpeg's tables are not symmetric), so it compresses as well
    /// as a re-encode that keeps the stored pixels and the Orientation tag.
    public var transposedQuantization = false

    public init(subsampling: Subsampling = .s420, optimizeHuffman: Bool = true,
                progressive: Bool = false, writeJFIF: Bool = true) {
        self.subsampling = subsampling
        self.optimizeHuffman = optimizeHuffman
        self.progressive = progressive
        self.writeJFIF = writeJFIF
    }
}

/// A marker segment written verbatim after SOI (and JFIF APP0).
public struct JPEGSegment: Sendable, Equatable {
    public var marker: UInt8   // e.g. 0xE1 for APP1
    /// At most `maxPayload` bytes; the length field is added by the encoder.
    public var payload: [UInt8]

    public init(marker: UInt8, payload: [UInt8]) {
        self.marker = marker
        self.payload = payload
    }

    public static let app1: UInt8 = 0xE1
    public static let app2: UInt8 = 0xE2
    /// A segment's length field (2 bytes) counts itself: 65535 - 2.
    public static let maxPayload = 65533

    static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let iccHeader: [UInt8] = Array("ICC_PROFILE".utf8) + [0]   // then sequence number, count
    static let maxICCChunk = maxPayload - iccHeader.count - 2   // 65519

    /// The largest EXIF (TIFF bytes), XMP packet and ICC profile that fit in JPEG segments.
    public static let maxEXIFSize = maxPayload - exifHeader.count   // 65527
    public static let maxXMPSize = maxPayload - xmpHeader.count - 2  // 65502, as Adobe's XMP spec says
    public static let maxICCSize = 255 * maxICCChunk                 // the count is one byte

    /// The segments that carry `metadata`, in the usual order: APP1 EXIF, APP1 XMP, APP2 ICC
    /// chunks. A block larger than `maxEXIFSize`, `maxXMPSize` or `maxICCSize` is left out:
    /// the caller compares sizes against those limits and decides what to tell the user.
    public static func segments(for metadata: ImageMetadata) -> [JPEGSegment] {
        var segments: [JPEGSegment] = []
        if let exif = metadata.exif, !exif.isEmpty, exif.count <= maxEXIFSize {
            segments.append(JPEGSegment(marker: app1, payload: exifHeader + exif))
        }
        if let xmp = metadata.xmp, !xmp.isEmpty, xmp.count <= maxXMPSize {
            segments.append(JPEGSegment(marker: app1, payload: xmpHeader + xmp))
        }
        if let icc = metadata.icc, !icc.isEmpty, icc.count <= maxICCSize {
            segments += iccSegments(icc)
        }
        return segments
    }

    /// ICC.1 Annex B: the profile split into chunks numbered 1...count.
    static func iccSegments(_ profile: [UInt8]) -> [JPEGSegment] {
        let starts = Array(stride(from: 0, to: profile.count, by: maxICCChunk))
        return starts.enumerated().map { index, start in
            let chunk = profile[start..<min(start + maxICCChunk, profile.count)]
            return JPEGSegment(marker: app2, payload: iccHeader + [UInt8(index + 1), UInt8(starts.count)] + chunk)
        }
    }
}

/// Encodes RGB pixels to JPEG with libjpeg-turbo. Holds no state: a quality search may call it
/// many times (a libjpeg compressor kept across encodes was measured to save nothing).
public struct JPEGEncoder: Sendable {
    public init() {}

    /// `image` must be RGB (flatten alpha first); `quality` is 1...100. Each segment's payload
    /// must be at most `JPEGSegment.maxPayload` bytes.
    public func encode(_ image: PixelBuffer, quality: Int, settings: JPEGSettings,
                       segments: [JPEGSegment] = []) throws -> [UInt8] {
        precondition(image.channels == 3, "JPEG encoding takes RGB; flatten alpha first")
        return try Self.run(quality: quality, settings: settings, segments: segments) { options, cSegments, output, outputSize, err, errlen in
            image.pixels.withUnsafeBufferPointer { pixels in
                cic_jpeg_encode(pixels.baseAddress, Int32(image.width), Int32(image.height),
                                image.rowBytes, options, cSegments, cSegments.count, &output, &outputSize, err, errlen)
            }
        }
    }

    /// Encodes planar RGB like `encode(_:quality:settings:segments:)` (the C side interleaves a band at a time).
    public func encode(_ image: RGBPlanes, quality: Int, settings: JPEGSettings, segments: [JPEGSegment] = []) throws -> [UInt8] {
        try Self.run(quality: quality, settings: settings, segments: segments) { options, cSegments, output, outputSize, err, errlen in
            withExtendedLifetime(image.planes) {
                let (r, g, b) = (image.planes.planes[0], image.planes.planes[1], image.planes.planes[2])
                return cic_jpeg_encode_rgb_planes(r.row(0), r.stride, g.row(0), g.stride, b.row(0), b.stride,
                                                  Int32(image.width), Int32(image.height), options,
                                                  cSegments, cSegments.count, &output, &outputSize, err, errlen)
            }
        }
    }

    /// Encodes Y'CbCr 4:2:0 planes as a 4:2:0 JPEG with no colour conversion; `settings.subsampling` does not apply.
    public func encode(_ image: YCbCr420Image, quality: Int, settings: JPEGSettings,
                       segments: [JPEGSegment] = []) throws -> [UInt8] {
        try Self.run(quality: quality, settings: settings, segments: segments) { options, cSegments, output, outputSize, err, errlen in
            withExtendedLifetime(image.planes) {
                cic_jpeg_encode_ycbcr420(image.luma.row(0), image.luma.stride, image.cb.row(0), image.cb.stride,
                                         image.cr.row(0), image.cr.stride, Int32(image.width), Int32(image.height),
                                         options, cSegments, cSegments.count, &output, &outputSize, err, errlen)
            }
        }
    }

    private static func options(quality: Int, settings: JPEGSettings) -> cic_jpeg_options {
        var options = cic_jpeg_options()
        options.quality = Int32(quality)
        options.subsampling = switch settings.subsampling {
        case .s420: CIC_SUBSAMPLING_420
        case .s422: CIC_SUBSAMPLING_422
        case .s444: CIC_SUBSAMPLING_444
        }
        options.optimize_coding = settings.optimizeHuffman ? 1 : 0
        options.progressive = settings.progressive ? 1 : 0
        options.write_jfif = settings.writeJFIF ? 1 : 0
        options.transpose_quant_tables = settings.transposedQuantization ? 1 : 0
        return options
    }

    /// Lays the segments out for C, runs one encode and takes ownership of its output.
    private static func run(
        quality: Int, settings: JPEGSettings, segments: [JPEGSegment],
        _ encode: (UnsafePointer<cic_jpeg_options>, [cic_jpeg_segment], inout UnsafeMutablePointer<UInt8>?, inout Int,
                   UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws -> [UInt8] {
        precondition((1...100).contains(quality), "JPEG quality must be 1...100")
        var options = Self.options(quality: quality, settings: settings)
        precondition(segments.allSatisfy { $0.payload.count <= JPEGSegment.maxPayload },
                     "JPEG segment payload over \(JPEGSegment.maxPayload) bytes")
        // All payloads in one array so a single pointer stays valid for the whole C call.
        let joined = segments.flatMap(\.payload)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        defer { cic_free(output) }
        try callCodec("libjpeg", kind: .unsupported) { err, errlen in
            joined.withUnsafeBufferPointer { payloads in
                var offset = 0
                let cSegments = segments.map { segment in
                    defer { offset += segment.payload.count }
                    return cic_jpeg_segment(marker: Int32(segment.marker), data: payloads.baseAddress.map { $0 + offset },
                                            length: UInt32(segment.payload.count))
                }
                return encode(&options, cSegments, &output, &outputSize, err, errlen)
            }
        }
        guard let output else { throw ImagePrepError.library("libjpeg", "encoder returned no data", kind: .unsupported) }
        return Array(UnsafeBufferPointer(start: output, count: outputSize))
    }
}
