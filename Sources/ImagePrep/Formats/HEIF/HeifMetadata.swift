import CHeif

/// EXIF, XMP, IPTC and colour profiles as libheif hands them out, for the decoder and for `info`.
extension HeifDecoder {
    /// `tiles` is the colour a grid's tiles carry, for a grid decoded without libheif (which reads it from them).
    static func metadata(handle: OpaquePointer, image: OpaquePointer?, tiles: GridTileColour? = nil,
                         warnings: inout [String]) -> ImageMetadata {
        var metadata = ImageMetadata()
        for block in metadataBlocks(handle, type: "Exif") {
            if let tiff = Exif.tiff(fromHeifExifItem: block) { metadata.exif = tiff; break }
            warnings.append("dropped an EXIF block that has no TIFF header")
        }
        for block in metadataBlocks(handle, type: "mime", contentType: "application/rdf+xml") {
            metadata.xmp = block
            break
        }
        // An `iptc` item holds bare IIM datasets; JPEG keeps them inside a Photoshop resource.
        if let iim = metadataBlocks(handle, type: "iptc").first {
            metadata.iptc = IPTC.resources(wrappingIIM: iim)
        }
        // libheif turns monochrome pictures into RGB too, and the handle does not say which it is.
        let tileICC: [UInt8]? = if case .icc(let profile) = tiles { profile } else { nil }
        let tileNCLX: NCLXColor? = if case .nclx(let nclx) = tiles { nclx } else { nil }
        metadata.setICC(rawProfile(handle: handle) ?? image.flatMap(rawProfile(image:)) ?? tileICC, for: [.rgb, .gray], warnings: &warnings)
        if metadata.icc == nil, let nclx = nclxProfile(handle: handle) ?? image.flatMap(nclxProfile(image:)) ?? tileNCLX {
            let synthesized = ColorProfileSynthesizer.profile(for: nclx)
            metadata.icc = synthesized.icc
            if let warning = synthesized.warning { warnings.append(warning) }
        }
        return metadata
    }

    static func metadataBlocks(_ handle: OpaquePointer, type: String, contentType: String? = nil) -> [[UInt8]] {
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
    static func rawProfile(image: OpaquePointer) -> [UInt8]? {
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

    static func nclxProfile(image: OpaquePointer) -> NCLXColor? {
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
