import CHeif

/// Decodes the primary image of a HEIF/HEIC/AVIF file with libheif, transforms (irot, imir, clap)
/// applied, to 8-bit RGB(A), with its EXIF, XMP and colour profile; a plain HEIC grid for an encoder that
/// takes Y'CbCr to its own planes instead (HeifGridPlanes).
public struct HeifDecoder: ImageDecoding {
    public init() {}

    public func header(of file: [UInt8]) throws -> ImageHeader {
        let context = try HeifContext(file, threads: 1)
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }
        return try Self.header(of: handle)
    }

    /// The upright size: libheif reports it with irot/imir/clap applied. A clean aperture can only
    /// crop; libheif 1.15 takes one larger than the picture (2147483647x2147483647 on 320x240) as it is.
    static func header(of handle: OpaquePointer) throws -> ImageHeader {
        let header = ImageHeader(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
        let stored = (Int(heif_image_handle_get_ispe_width(handle)), Int(heif_image_handle_get_ispe_height(handle)))
        let upright = (min(header.width, header.height), max(header.width, header.height))
        if stored.0 > 0, stored.1 > 0, upright.0 > min(stored.0, stored.1) || upright.1 > max(stored.0, stored.1) {
            throw ImagePrepError(.corrupt, "the clean aperture (clap) makes the picture \(header.width)x\(header.height), "
                                 + "larger than its \(stored.0)x\(stored.1)")
        }
        return header
    }

    public func decode(_ file: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        let context = try HeifContext(file, threads: options.threads)
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }
        let header = try Self.header(of: handle)
        try checkPixelCap(header, options: options)
        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        let bitDepth = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        let wide = bitDepth > 8

        guard let decoding = heif_decoding_options_alloc() else {
            throw ImagePrepError.library("libheif", "out of memory")
        }
        defer { heif_decoding_options_free(decoding) }
        // A damaged tile must fail the file, not come out grey.
        decoding.pointee.strict_decoding = 1

        // libheif 1.15 converts every picture to planar RGB before handing it out (asking for Y'CbCr
        // makes it convert back), so opaque SDR pictures are taken as those planes: no interleaved
        // full-size copy. HDR (tone-mapped) and alpha come interleaved.
        let hdr = wide && Self.rawProfile(handle: handle) == nil
            && Self.nclxProfile(handle: handle).map { [16, 18].contains($0.transfer) } == true
        // Deep samples headed for sRGB are converted from 16-bit words, so they come interleaved too.
        let toSRGB = options.convertsToSRGB && wide && !hdr
        let planar = !hdr && !hasAlpha && !toSRGB
        let request: heif_chroma = switch (planar, wide, hasAlpha) {
        case (true, _, _): heif_chroma_444
        case (false, false, _): heif_chroma_interleaved_RGBA     // not planar and 8-bit: has alpha
        case (false, true, false): heif_chroma_interleaved_RRGGBB_LE
        case (false, true, true): heif_chroma_interleaved_RRGGBBAA_LE
        }
        var warnings: [String] = []
        // An encoder that stores Y'CbCr takes a plain grid's own planes (HeifGridPlanes says which grids are plain).
        if planar, !wide, options.keepsYCbCr420, let plan = HeifGridPlanes.plan(file) {
            let tiles = HeifStructure(file).flatMap { GridTileColour.of(file, structure: $0) }
            let tileNCLX: NCLXColor? = if case .nclx(let nclx) = tiles { nclx } else { nil }
            if let planes = try HeifGridPlanes.decode(file, plan: plan, upright: (header.width, header.height),
                                                      itemColour: Self.nclxProfile(handle: handle) ?? tileNCLX, threads: options.threads) {
                let metadata = Self.metadata(handle: handle, image: nil, tiles: tiles, warnings: &warnings)
                return Self.decoded(.ycbcr420(planes), file, handle: handle, metadata: metadata, bitDepth: bitDepth,
                                    warnings: warnings, options: options)
            }
        }
        var decodedImage: OpaquePointer?
        try check(heif_decode_image(handle, &decodedImage, heif_colorspace_RGB, request, decoding), "cannot decode the image")
        guard let decodedImage else { throw ImagePrepError.library("libheif", "decoder returned no image") }
        let owner = HeifImage(decodedImage)
        let image = owner.pointer

        let metadata = Self.metadata(handle: handle, image: image, warnings: &warnings)
        let pixels: DecodedPixels
        if planar {
            guard let planes = Self.rgbPlanes(of: owner) else {
                throw ImagePrepError.library("libheif", "decoded image has an unexpected layout", kind: .unsupported)
            }
            pixels = .rgbPlanes(planes)
        } else {
            let nclx = Self.nclxProfile(image: image) ?? Self.nclxProfile(handle: handle)
            let toneMapping = hdr ? nclx.flatMap { HDRToneMapper(transfer: $0.transfer, bitDepth: bitDepth) } : nil
            let channels = hasAlpha ? 4 : 3
            let toSRGBTransform = toSRGB
                ? SRGBConversion.transform(for: metadata.icc, bytesPerSample: 2, stride: channels, warnings: &warnings) : nil
            pixels = .rgb(try Self.pixels(of: image, hasAlpha: hasAlpha, wide: wide, toneMapping: toneMapping,
                                          toSRGB: toSRGBTransform, threads: options.threads))
        }
        var decoded = Self.decoded(pixels, file, handle: handle, metadata: metadata, bitDepth: bitDepth, warnings: warnings, options: options)
        decoded.isSRGB = toSRGB
        return decoded
    }

    /// The decoded picture with its metadata and the gain map beside it.
    private static func decoded(_ pixels: DecodedPixels, _ file: [UInt8], handle: OpaquePointer, metadata: ImageMetadata,
                                bitDepth: Int, warnings: [String], options: DecodeOptions) -> DecodedImage {
        var metadata = metadata, warnings = warnings
        metadata.describeGrayAsRGB(warnings: &warnings)   // the pixels come out RGB or colour Y'CbCr
        var decoded = DecodedImage(content: pixels, metadata: metadata, orientation: .up, sourceBitDepth: bitDepth, warnings: warnings)
        decoded.gainMap = HeifGainMapReader.read(file, primary: handle, primaryEXIF: metadata.exif, decodes: options.readsGainMap)
        decoded.warnings += decoded.gainMap.warnings
        return decoded
    }

    /// The R, G and B planes of a decoded image, read in place when they are 8-bit; deeper samples
    /// are scaled to 8 bits with rounding (v * 255 / max) into planes of our own.
    private static func rgbPlanes(of owner: HeifImage) -> RGBPlanes? {
        let image = owner.pointer
        let channels = [heif_channel_R, heif_channel_G, heif_channel_B]
        let width = Int(heif_image_get_width(image, heif_channel_R))
        let height = Int(heif_image_get_height(image, heif_channel_R))
        let depth = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_R))
        var planes: [SamplePlane] = []
        for channel in channels {
            var stride: Int32 = 0
            guard heif_image_get_width(image, channel) == width, heif_image_get_height(image, channel) == height,
                  heif_image_get_bits_per_pixel_range(image, channel) == depth,
                  let base = heif_image_get_plane_readonly(image, channel, &stride),
                  Int(stride) >= width * (depth > 8 ? 2 : 1) else { return nil }
            planes.append(SamplePlane(base: UnsafeRawPointer(base), stride: Int(stride)))
        }
        guard width > 0, height > 0, (8...16).contains(depth) else { return nil }
        if depth == 8 { return RGBPlanes(width: width, height: height, planes: DecodedPlanes(planes, owner: owner)) }

        // libheif keeps samples deeper than 8 bits in 16-bit words.
        let count = width * height, maxValue = UInt32((1 << depth) - 1)
        let storage = PlaneStorage(count: 3 * count)
        for (index, plane) in planes.enumerated() {
            let out = storage.pointer + index * count
            for y in 0..<height {
                let row = (plane.base + y * plane.stride).assumingMemoryBound(to: UInt16.self)
                for x in 0..<width {
                    out[y * width + x] = UInt8((min(UInt32(row[x]), maxValue) * 255 + maxValue / 2) / maxValue)
                }
            }
        }
        return RGBPlanes(packed: storage.pointer, width: width, height: height, owner: storage)
    }

    /// Copies the interleaved plane into a tightly packed 8-bit buffer; deeper samples are scaled
    /// with rounding (v * 255 / max), not truncated, or tone-mapped when they are HDR.
    private static func pixels(of image: OpaquePointer, hasAlpha: Bool, wide: Bool,
                               toneMapping: HDRToneMapper?, toSRGB: ColorTransform? = nil, threads: Int = 1) throws -> PixelBuffer {
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw ImagePrepError.library("libheif", "decoded image has no pixel plane")
        }
        let channels = hasAlpha ? 4 : 3
        let rowBytes = width * channels
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        out.withUnsafeMutableBufferPointer { dst in
            if !wide {
                for y in 0..<height {
                    (dst.baseAddress! + y * rowBytes).update(from: plane + y * Int(stride), count: rowBytes)
                }
                return
            }
            let depth = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
            let maxValue = UInt32((1 << max(depth, 9)) - 1)
            if let toneMapping {
                for y in 0..<height {
                    let row = UnsafeRawPointer(plane + y * Int(stride))
                    func sample(_ i: Int) -> Int { Int(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))) }
                    for x in 0..<width {
                        let i = x * channels, o = y * rowBytes + x * channels
                        (dst[o], dst[o + 1], dst[o + 2]) = toneMapping.map(sample(i), sample(i + 1), sample(i + 2))
                        if channels == 4 { dst[o + 3] = UInt8((min(UInt32(sample(i + 3)), maxValue) * 255 + maxValue / 2) / maxValue) }
                    }
                }
                return
            }
            if let toSRGB {
                // lcms takes full-range 16-bit words: scale each row up (rounding), convert, copy alpha.
                let input = SharedPointer(UnsafeMutablePointer(mutating: plane)), output = SharedPointer(dst.baseAddress!)   // not empty: width, height > 0
                let rowStride = Int(stride)
                inBands(of: height, threads: threads) { rows in
                    var words = [UInt16](repeating: 0, count: rowBytes)
                    for y in rows {
                        let row = UnsafeRawPointer(input.pointer + y * rowStride)
                        for i in 0..<rowBytes {
                            let v = UInt32(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)))
                            words[i] = UInt16((min(v, maxValue) * 65535 + maxValue / 2) / maxValue)
                        }
                        let out = output.pointer + y * rowBytes
                        words.withUnsafeBytes { toSRGB.apply($0.baseAddress!, out, count: width) }   // rowBytes > 0
                        if channels == 4 {
                            for x in 0..<width { out[x * 4 + 3] = UInt8((UInt32(words[x * 4 + 3]) * 255 + 32767) / 65535) }
                        }
                    }
                }
                return
            }
            for y in 0..<height {
                let row = UnsafeRawPointer(plane + y * Int(stride))
                for i in 0..<rowBytes {
                    let v = UInt32(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)))
                    dst[y * rowBytes + i] = UInt8((min(v, maxValue) * 255 + maxValue / 2) / maxValue)
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: channels, pixels: out)
    }
}
