import CHeif

/// Finds Apple's gain map in a HEIC: the primary's auxiliary image of type
/// `urn:com:apple:photo:2020:aux:hdrgainmap`, decoded as grey by libheif (which applies the map's own
/// transforms), turned like the primary when it is stored unturned. ISO 21496-1 `tmap` items are not
/// read: libheif 1.15 has no API for them.
enum HeifGainMapReader {
    static func read(_ file: [UInt8], primary: OpaquePointer, primaryEXIF: [UInt8]?, decodes: Bool) -> GainMapReading {
        guard let map = auxiliaryHandle(of: primary, type: AppleGainMap.auxiliaryType) else { return GainMapReading() }
        defer { heif_image_handle_release(map) }
        let xmp = HeifDecoder.metadataBlocks(map, type: "mime", contentType: "application/rdf+xml").first
        var reading = GainMapReading(origin: .appleAuxiliaryImage)
        switch AppleGainMap.checkedHeadroom(AppleGainMap.headroom(mapXMP: xmp, exif: primaryEXIF)) {
        case .success(let headroom)?: reading.headroom = headroom
        case .failure(let problem)?: reading.problem = problem.description
        case nil: break
        }
        let size = (width: Int(heif_image_handle_get_width(map)), height: Int(heif_image_handle_get_height(map)))
        reading.storedSize = size
        // A map is never larger than its picture, counted as libheif decodes it (a grid tile by tile,
        // whatever its `ispe` says): anything else is refused before decoding (bombs).
        let primarySize = Int(heif_image_handle_get_width(primary)) * Int(heif_image_handle_get_height(primary))
        let cost = HeifAuxiliaryCost.decodedPixels(file, auxiliaryType: AppleGainMap.auxiliaryType)
        if reading.problem == nil, size.width <= 0 || size.height <= 0 || size.width * size.height > primarySize || (cost ?? .max) > primarySize {
            reading.problem = cost.map { "decoding the gain map takes \($0) pixels, more than the \(primarySize) of its picture" }
                ?? "the gain map's size cannot be told before decoding it"
            reading.headroom = nil
        }
        guard decodes, reading.problem == nil, let headroom = reading.headroom, headroom > 1 else { return reading }
        do {
            var plane = try grey(map)
            guard plane.width == size.width, plane.height == size.height else {
                reading.problem = "the gain map decodes as \(plane.width)x\(plane.height), not the \(size.width)x\(size.height) it states"
                return reading
            }
            // libheif turns the primary by its irot/imir; a map stored without transforms of its own
            // (as iPhones store it) must follow the primary's.
            if let transforms = HeifItemTransforms(file, auxiliaryType: AppleGainMap.auxiliaryType), transforms.auxiliary.isEmpty {
                for transform in transforms.primary { plane = plane.oriented(transform) }
            }
            reading.gainMap = AppleGainMap.gainMap(plane: plane, headroom: headroom, origin: .appleAuxiliaryImage)
        } catch {
            reading.warnings.append("the HDR gain map cannot be decoded (\(error)); it is left out")
        }
        return reading
    }

    /// Apple's map as stored (its own transforms applied, not the primary's; not converted), for checks.
    static func storedAppleMap(_ file: [UInt8]) throws -> GainMapPlane? {
        let context = try HeifContext(file, threads: 1)
        let primary = try context.primaryImage()
        defer { heif_image_handle_release(primary) }
        guard let map = auxiliaryHandle(of: primary, type: AppleGainMap.auxiliaryType) else { return nil }
        defer { heif_image_handle_release(map) }
        return try grey(map)
    }

    static func auxiliaryHandle(of primary: OpaquePointer, type wanted: String) -> OpaquePointer? {
        let count = Int(heif_image_handle_get_number_of_auxiliary_images(primary, 0))
        guard count > 0, count < 1000 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_image_handle_get_list_of_auxiliary_image_IDs(primary, 0, &ids, Int32(count)))
        for id in ids.prefix(filled) {
            var handle: OpaquePointer?
            guard heif_image_handle_get_auxiliary_image_handle(primary, id, &handle).code == heif_error_Ok, let handle else { continue }
            var type: UnsafePointer<CChar>?
            if heif_image_handle_get_auxiliary_type(handle, &type).code == heif_error_Ok, let text = type {
                let name = String(cString: text)
                heif_image_handle_free_auxiliary_types(handle, &type)
                if name == wanted { return handle }
            }
            heif_image_handle_release(handle)
        }
        return nil
    }

    /// The map as libheif decodes it: its own transforms applied, not the primary's; not converted.
    static func grey(_ handle: OpaquePointer) throws -> GainMapPlane {
        var image: OpaquePointer?
        // libheif 1.15 hands out RGB whatever is asked; through RGB the map's range (full or limited)
        // is applied as for any picture, and its grey samples come out equal in R, G and B.
        try check(heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_444, nil), "cannot decode the gain map")
        guard let image else { throw ImagePrepError.library("libheif", "decoder returned no gain map") }
        let owner = HeifImage(image)
        var stride: Int32 = 0
        let width = Int(heif_image_get_width(owner.pointer, heif_channel_G))
        let height = Int(heif_image_get_height(owner.pointer, heif_channel_G))
        let depth = Int(heif_image_get_bits_per_pixel_range(owner.pointer, heif_channel_G))
        guard width > 0, height > 0, (8...16).contains(depth),
              let plane = heif_image_get_plane_readonly(owner.pointer, heif_channel_G, &stride),
              Int(stride) >= width * (depth > 8 ? 2 : 1) else {
            throw ImagePrepError.library("libheif", "the gain map has an unexpected layout", kind: .unsupported)
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let maxValue = (1 << depth) - 1
        for y in 0..<height {
            let row = UnsafeRawPointer(plane + y * Int(stride))
            for x in 0..<width {
                pixels[y * width + x] = depth == 8 ? row.load(fromByteOffset: x, as: UInt8.self)
                    : UInt8((min(Int(row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)), maxValue) * 255 + maxValue / 2) / maxValue)
            }
        }
        return GainMapPlane(width: width, height: height, pixels: pixels)
    }
}

extension AppleGainMap {
    /// The auxiliary-image type of Apple's map in a HEIC file.
    static let auxiliaryType = "urn:com:apple:photo:2020:aux:hdrgainmap"
}
