import CImageCodecs

/// Encodes RGB pixels to JPEG with libjpeg-turbo. Holds no state: a quality search may call it
/// many times (a libjpeg compressor kept across encodes was measured to save nothing).
public struct JPEGEncoder: ImageEncoding {
    public var settings: JPEGSettings

    public init(settings: JPEGSettings = JPEGSettings()) { self.settings = settings }

    public var format: OutputFormat { .jpeg }
    public var ycbcrLayout: YCbCrLayout? { settings.subsampling == .s420 ? .jfif : nil }

    /// Transposed tables match a re-encode of the unturned file; the standard ones win on some pictures.
    public var alternative: (any ImageEncoding)? {
        guard settings.transposedQuantization else { return nil }
        var standard = settings
        standard.transposedQuantization = false
        return JPEGEncoder(settings: standard)
    }

    /// Decodes `encoded` the way it will be seen and compares it sample by sample: Y'CbCr planes with
    /// Y'CbCr planes (no colour conversion), else RGB with RGB.
    public func meanSquaredError(of encoded: [UInt8], from picture: DecodedPixels) -> Double? {
        if case .ycbcr420(let planes) = picture {
            let source = planes.converted(to: .jfif)
            guard let decoded = try? JPEGDecoder.decodePlanes(encoded), decoded.width == source.width,
                  decoded.height == source.height else { return nil }
            let chroma = ((source.width + 1) / 2, (source.height + 1) / 2)
            let sizes = [(source.width, source.height), chroma, chroma]
            var sum = 0.0, count = 0
            withExtendedLifetime((source.planes, decoded.planes)) {
                for (index, size) in sizes.enumerated() {
                    sum += squaredError(source.planes.planes[index], decoded.planes.planes[index], width: size.0, height: size.1)
                    count += size.0 * size.1
                }
            }
            return sum / Double(max(count, 1))
        }
        let source = picture.rgb()
        guard let decoded = try? JPEGDecoder.decode(encoded), decoded.width == source.width, decoded.height == source.height,
              source.channels == 3 else { return nil }
        var sum = 0.0
        for (a, b) in zip(source.pixels, decoded.pixels) {
            let difference = Double(Int(a) - Int(b))
            sum += difference * difference
        }
        return sum / Double(max(source.pixels.count, 1))
    }

    private func squaredError(_ a: SamplePlane, _ b: SamplePlane, width: Int, height: Int) -> Double {
        var sum = 0
        for y in 0..<height {
            let rowA = a.row(y), rowB = b.row(y)
            for x in 0..<width {
                let difference = Int(rowA[x]) - Int(rowB[x])
                sum += difference * difference
            }
        }
        return Double(sum)
    }

    public func metadataBytes(_ metadata: ImageMetadata) -> Int {
        JPEGSegment.segments(for: metadata).reduce(0) { $0 + $1.payload.count + 4 }   // marker and length
    }

    public func encode(_ picture: DecodedPixels, quality: Int, metadata: ImageMetadata) throws -> [UInt8] {
        let segments = JPEGSegment.segments(for: metadata)
        switch picture {
        case .rgb(let image): return try encode(image, quality: quality, settings: settings, segments: segments)
        case .rgbPlanes(let planes): return try encode(planes, quality: quality, settings: settings, segments: segments)
        case .ycbcr420(let planes): return try encode(planes, quality: quality, settings: settings, segments: segments)
        case .animation: return try encode(picture.rgb(), quality: quality, settings: settings, segments: segments)
        }
    }

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

    /// Encodes an HDR gain map: a grey plane as a one-component JPEG, a colour one as 4:4:4 Y'CbCr (each
    /// channel is a gain of its own, so none is subsampled; libultrahdr writes colour maps the same way).
    public func encode(_ plane: GainMapPlane, quality: Int, settings: JPEGSettings, segments: [JPEGSegment] = []) throws -> [UInt8] {
        if plane.channels == 3 {
            var full = settings
            full.subsampling = .s444
            return try encode(PixelBuffer(width: plane.width, height: plane.height, channels: 3, pixels: plane.pixels),
                              quality: quality, settings: full, segments: segments)
        }
        return try Self.run(quality: quality, settings: settings, segments: segments) { options, cSegments, output, outputSize, err, errlen in
            plane.pixels.withUnsafeBufferPointer { samples in
                cic_jpeg_encode_gray(samples.baseAddress, Int32(plane.width), Int32(plane.height), plane.width,
                                     options, cSegments, cSegments.count, &output, &outputSize, err, errlen)
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

    /// Encodes Y'CbCr 4:2:0 planes as a 4:2:0 JPEG, converted plane to plane to JFIF's layout if they are in
    /// another (no conversion when they come from a JPEG); `settings.subsampling` does not apply.
    public func encode(_ image: YCbCr420Image, quality: Int, settings: JPEGSettings,
                       segments: [JPEGSegment] = []) throws -> [UInt8] {
        let image = image.converted(to: .jfif)
        return try Self.run(quality: quality, settings: settings, segments: segments) { options, cSegments, output, outputSize, err, errlen in
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
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        defer { cic_free(output) }
        try callCodec("libjpeg", kind: .unsupported) { err, errlen in
            withCSegments(segments) { cSegments in encode(&options, cSegments, &output, &outputSize, err, errlen) }
        }
        guard let output else { throw ImagePrepError.library("libjpeg", "encoder returned no data", kind: .unsupported) }
        return Array(UnsafeBufferPointer(start: output, count: outputSize))
    }

    /// Lays segments out for C: all payloads in one array, so a single pointer stays valid for the whole call.
    static func withCSegments<R>(_ segments: [JPEGSegment], _ body: ([cic_jpeg_segment]) -> R) -> R {
        precondition(segments.allSatisfy { $0.payload.count <= JPEGSegment.maxPayload },
                     "JPEG segment payload over \(JPEGSegment.maxPayload) bytes")
        let joined = segments.flatMap(\.payload)
        return joined.withUnsafeBufferPointer { payloads in
            var offset = 0
            let cSegments = segments.map { segment in
                defer { offset += segment.payload.count }
                return cic_jpeg_segment(marker: Int32(segment.marker), data: payloads.baseAddress.map { $0 + offset },
                                        length: UInt32(segment.payload.count))
            }
            return body(cSegments)
        }
    }
}
