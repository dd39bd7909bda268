import CHeif

/// Decodes the primary image of a HEIF/HEIC/AVIF file with libheif, transforms (irot, imir, clap)
/// applied, to 8-bit RGB(A), with its EXIF, XMP and colour profile.
public struct HeifDecoder: Sendable {
    /// Refuse images with more pixels than this before decoding (decompression bombs).
    public var maxPixels: Int
    /// Threads libheif may use to decode the tiles of a grid image.
    public var decodingThreads: Int

    public init(maxPixels: Int, decodingThreads: Int) {
        self.maxPixels = maxPixels
        self.decodingThreads = decodingThreads
    }

    public func decode(_ file: [UInt8]) throws -> DecodedImage {
        let context = try HeifContext(file, threads: decodingThreads)
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }

        let width = Int(heif_image_handle_get_width(handle))
        let height = Int(heif_image_handle_get_height(handle))
        if width * height > maxPixels {
            throw ImagePrepError(.tooLarge,
                "\(width)x\(height) is \(width * height / 1_000_000) MP, over the --max-pixels limit of \(maxPixels / 1_000_000) MP")
        }
        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        let bitDepth = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        let wide = bitDepth > 8

        guard let options = heif_decoding_options_alloc() else {
            throw ImagePrepError.library("libheif", "out of memory")
        }
        defer { heif_decoding_options_free(options) }
        // A damaged tile must fail the file, not come out grey.
        options.pointee.strict_decoding = 1

        // libheif 1.15 converts every picture to planar RGB before handing it out (asking for Y'CbCr
        // makes it convert back), so opaque SDR pictures are taken as those planes: no interleaved
        // full-size copy. HDR (tone-mapped) and alpha come interleaved.
        let hdr = wide && Self.rawProfile(handle: handle) == nil
            && Self.nclxProfile(handle: handle).map { [16, 18].contains($0.transfer) } == true
        let planar = !hdr && !hasAlpha
        let request: heif_chroma = switch (planar, wide, hasAlpha) {
        case (true, _, _): heif_chroma_444
        case (false, false, _): heif_chroma_interleaved_RGBA     // not planar and 8-bit: has alpha
        case (false, true, false): heif_chroma_interleaved_RRGGBB_LE
        case (false, true, true): heif_chroma_interleaved_RRGGBBAA_LE
        }
        var decodedImage: OpaquePointer?
        try check(heif_decode_image(handle, &decodedImage, heif_colorspace_RGB, request, options), "cannot decode the image")
        guard let decodedImage else { throw ImagePrepError.library("libheif", "decoder returned no image") }
        let owner = HeifImage(decodedImage)
        let image = owner.pointer

        let pixels: DecodedPixels
        if planar {
            guard let planes = Self.rgbPlanes(of: owner) else {
                throw ImagePrepError.library("libheif", "decoded image has an unexpected layout", kind: .unsupported)
            }
            pixels = .rgbPlanes(planes)
        } else {
            let nclx = Self.nclxProfile(image: image) ?? Self.nclxProfile(handle: handle)
            let toneMapping = hdr ? nclx.flatMap { HDRToneMapper(transfer: $0.transfer, bitDepth: bitDepth) } : nil
            pixels = .rgb(try Self.pixels(of: image, hasAlpha: hasAlpha, wide: wide, toneMapping: toneMapping))
        }
        var warnings: [String] = []
        let metadata = Self.metadata(handle: handle, image: image, warnings: &warnings)
        return DecodedImage(content: pixels, metadata: metadata, orientation: .up,
                            sourceBitDepth: bitDepth, warnings: warnings)
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
                               toneMapping: HDRToneMapper?) throws -> PixelBuffer {
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

    static func metadata(handle: OpaquePointer, image: OpaquePointer?, warnings: inout [String]) -> ImageMetadata {
        var metadata = ImageMetadata()
        for block in metadataBlocks(handle, type: "Exif") {
            if let tiff = Exif.tiff(fromHeifExifItem: block) { metadata.exif = tiff; break }
            warnings.append("dropped an EXIF block that has no TIFF header")
        }
        for block in metadataBlocks(handle, type: "mime", contentType: "application/rdf+xml") {
            metadata.xmp = block
            break
        }
        metadata.icc = rawProfile(handle: handle) ?? image.flatMap(rawProfile(image:))
        if metadata.icc == nil, let nclx = nclxProfile(handle: handle) ?? image.flatMap(nclxProfile(image:)) {
            let synthesized = ColorProfileSynthesizer.profile(for: nclx)
            metadata.icc = synthesized.icc
            if let warning = synthesized.warning { warnings.append(warning) }
        }
        return metadata
    }

    private static func metadataBlocks(_ handle: OpaquePointer, type: String, contentType: String? = nil) -> [[UInt8]] {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, type))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, Int32(count)))
        return ids.prefix(filled).compactMap { id in
            if let contentType {
                guard let type = heif_image_handle_get_metadata_content_type(handle, id),
                      String(cString: type) == contentType else { return nil }
            }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &bytes).code == heif_error_Ok else { return nil }
            return bytes
        }
    }

    static func rawProfile(handle: OpaquePointer) -> [UInt8]? {
        rawProfile(type: heif_image_handle_get_color_profile_type(handle),
                   size: heif_image_handle_get_raw_color_profile_size(handle)) { heif_image_handle_get_raw_color_profile(handle, $0) }
    }

    /// Grid images often carry the profile on their tiles only; libheif passes it to the decoded image.
    private static func rawProfile(image: OpaquePointer) -> [UInt8]? {
        rawProfile(type: heif_image_get_color_profile_type(image),
                   size: heif_image_get_raw_color_profile_size(image)) { heif_image_get_raw_color_profile(image, $0) }
    }

    /// The ICC bytes libheif's handle and image calls both hand out the same way.
    private static func rawProfile(type: heif_color_profile_type, size: Int,
                                   read: (UnsafeMutableRawPointer) -> heif_error) -> [UInt8]? {
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard bytes.withUnsafeMutableBytes({ read($0.baseAddress!) }).code == heif_error_Ok else { return nil }  // size > 0
        return bytes
    }

    static func nclxProfile(handle: OpaquePointer) -> NCLXColor? {
        nclxProfile { heif_image_handle_get_nclx_color_profile(handle, $0) }
    }

    private static func nclxProfile(image: OpaquePointer) -> NCLXColor? {
        nclxProfile { heif_image_get_nclx_color_profile(image, $0) }
    }

    private static func nclxProfile(
        _ read: (UnsafeMutablePointer<UnsafeMutablePointer<heif_color_profile_nclx>?>) -> heif_error
    ) -> NCLXColor? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = read(&nclx)
        // libheif 1.15 hands the profile out before it finds code points it does not know (primaries 13,
        // say) and reports an error: it is ours to free either way.
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        guard error.code == heif_error_Ok, let nclx else { return nil }
        return NCLXColor(nclx.pointee)
    }
}

extension NCLXColor {
    init(_ p: heif_color_profile_nclx) {
        self.init(primaries: Int(p.color_primaries.rawValue), transfer: Int(p.transfer_characteristics.rawValue),
                  matrix: Int(p.matrix_coefficients.rawValue), fullRange: p.full_range_flag != 0)
    }
}

/// Owns one decoded libheif image.
final class HeifImage {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { heif_image_release(pointer) }
}

/// Owns a libheif context for one file, and the bytes it reads from.
final class HeifContext {
    let pointer: OpaquePointer
    /// libheif reads from this copy without copying it again, so it lives exactly as long as the context.
    private let storage: UnsafeMutableRawBufferPointer

    init(_ file: [UInt8], threads: Int) throws {
        try HeifReferenceLoops.check(file)  // libheif 1.15 would recurse until it aborts
        var (context, storage, error) = try Self.open(file, threads: threads)
        // libheif 1.15 rejects iPhone gain-map files over a reference shape it did not expect;
        // retry once with the references tidied (see HeifReferenceRepair).
        if error.code != heif_error_Ok, HeifReferenceRepair.isWorkaroundCandidate(message: message(of: error)),
           let repaired = repairedForLibheif115(file) {
            heif_context_free(context)
            storage.deallocate()
            (context, storage, error) = try Self.open(repaired.bytes, threads: threads)
        }
        self.pointer = context
        self.storage = storage
        try check(error, "cannot read the HEIF file")  // deinit frees both
    }

    deinit {
        heif_context_free(pointer)
        storage.deallocate()
    }

    private static func open(_ bytes: [UInt8], threads: Int) throws
        -> (OpaquePointer, UnsafeMutableRawBufferPointer, heif_error)
    {
        guard let context = heif_context_alloc() else { throw ImagePrepError.library("libheif", "out of memory") }
        heif_context_set_max_decoding_threads(context, Int32(threads))
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        let error = heif_context_read_from_memory_without_copy(context, storage.baseAddress, bytes.count, nil)
        return (context, storage, error)
    }

    func primaryImage() throws -> OpaquePointer {
        var handle: OpaquePointer?
        try check(heif_context_get_primary_image_handle(pointer, &handle), "cannot find the primary image")
        guard let handle else { throw ImagePrepError.library("libheif", "no primary image") }
        return handle
    }
}

private func message(of error: heif_error) -> String {
    error.message.map { String(cString: $0) } ?? "unknown error"
}

/// The one place libheif errors become Swift errors.
func check(_ error: heif_error, _ what: String) throws {
    guard error.code != heif_error_Ok else { return }
    let kind: ImagePrepError.Kind = switch error.code {
    case heif_error_Unsupported_feature, heif_error_Unsupported_filetype: .unsupported
    case heif_error_Memory_allocation_error: .io
    default: .corrupt
    }
    throw ImagePrepError.library("libheif", "\(what): \(message(of: error))", kind: kind)
}
