import CHeif

extension ImageInspector {
    /// From libheif's image handles and the boxes themselves.
    static func inspectHeif(_ file: [UInt8], isAVIF: Bool, brands: [String]) throws -> ImageDescription {
        let context = try HeifContext(file, threads: 1)
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }
        _ = try HeifDecoder.header(of: handle)   // what convert refuses, info refuses
        var description = ImageDescription(format: isAVIF ? "AVIF" : "HEIF")
        description.brands = brands.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }  // the major brand is often listed again
        description.width = Int(heif_image_handle_get_width(handle))
        description.height = Int(heif_image_handle_get_height(handle))
        description.bitDepth = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        description.hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        let stored = PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
        if stored != PixelSize(width: description.width, height: description.height) {
            description.storedSize = stored
            description.notes.append("stored as \(stored.width)x\(stored.height); irot/imir/clap make it \(description.width)x\(description.height) upright")
        }
        // Metadata as the decoder extracts it, so info and convert agree.
        var warnings: [String] = []
        let metadata = HeifDecoder.metadata(handle: handle, image: nil, warnings: &warnings)
        description.notes += warnings
        describeBlocks(metadata, into: &description)
        let structure = HeifStructure(file)
        if metadata.droppedICC == nil, let icc = HeifDecoder.rawProfile(handle: handle) {
            description.setICC(icc, where: "")
        } else if let nclx = HeifDecoder.nclxProfile(handle: handle) {
            description.setNCLX(nclx, where: "")
        } else if let structure, GridTileColour.primaryIsGrid(structure) {
            switch GridTileColour.of(file, structure: structure) {
            case .icc(let icc):
                if let problem = ICCProfileCheck.problem(in: icc, for: [.rgb, .gray]) {
                    description.setInvalidICC(problem)
                    description.notes.append("ICC profile on the grid tiles dropped: \(problem)")
                } else {
                    description.setICC(icc, where: " on the grid tiles (convert uses it)")
                }
            case .nclx(let nclx): description.setNCLX(nclx, where: " on the grid tiles (convert uses it)")
            case nil: description.colour = "none on the grid or its tiles (viewers assume sRGB)"
            }
        } else if let problem = metadata.droppedICC {
            description.setInvalidICC(problem)
        }
        if description.exifOrientation.map({ $0 != 1 }) ?? false {
            description.notes.append("EXIF Orientation is informational in HEIF; the irot/imir boxes decide, and outputs get Orientation 1")
        }
        let reading = HeifGainMapReader.read(file, primary: handle, primaryEXIF: metadata.exif, decodes: false)
        if let origin = reading.origin {
            description.gainMap = GainMapSummary(reading, origin: origin, bytes: nil)
            description.notes += reading.problem.map { ["the gain map cannot be used: \($0) (imgprep leaves it out)"] } ?? []
        }
        if structure?.items.contains(where: { $0.type == "tmap" }) == true {
            description.notes.append("an ISO 21496-1 tone-map (tmap) item too, which libheif 1.15 cannot read: "
                + (reading.origin == nil ? "its gain map is not kept" : "the Apple gain map is kept, the tmap's own values are not used"))
        }
        description.contents = heifContents(context: context, primary: handle)
        description.contents += structure.map(\.summaryLines) ?? []
        if HeifReferenceRepair.hasMultiTargetReferences(file) {
            description.notes.append("auxl/cdsc references with several targets, which libheif 1.15 rejects: read through an in-memory repair of the iref box")
        }
        return description
    }

    private static func heifContents(context: HeifContext, primary: OpaquePointer) -> [String] {
        var lines: [String] = []
        let topLevel = Int(heif_context_get_number_of_top_level_images(context.pointer))
        lines.append("\(topLevel) top-level image\(topLevel == 1 ? "" : "s") (the primary is converted)")
        let thumbnails = Int(heif_image_handle_get_number_of_thumbnails(primary))
        if thumbnails > 0 { lines.append("\(thumbnails) thumbnail\(thumbnails == 1 ? "" : "s")") }
        if heif_image_handle_has_depth_image(primary) != 0 { lines.append("depth image") }
        let auxCount = Int(heif_image_handle_get_number_of_auxiliary_images(primary, 0))
        if auxCount > 0 {
            var ids = [heif_item_id](repeating: 0, count: auxCount)
            let filled = Int(heif_image_handle_get_list_of_auxiliary_image_IDs(primary, 0, &ids, Int32(auxCount)))
            for id in ids.prefix(filled) {
                var aux: OpaquePointer?
                guard heif_image_handle_get_auxiliary_image_handle(primary, id, &aux).code == heif_error_Ok, let aux else { continue }
                defer { heif_image_handle_release(aux) }
                var type: UnsafePointer<CChar>?
                var name = "auxiliary image"
                if heif_image_handle_get_auxiliary_type(aux, &type).code == heif_error_Ok, let text = type {
                    name = "auxiliary image \(String(cString: text))"
                    heif_image_handle_free_auxiliary_types(aux, &type)
                }
                lines.append("\(name) \(heif_image_handle_get_width(aux))x\(heif_image_handle_get_height(aux))")
            }
        }
        return lines
    }
}
