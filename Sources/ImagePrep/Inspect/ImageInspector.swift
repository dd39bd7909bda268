import CHeif

/// What `imgprep info` tells about a file: what it is and what it holds, without converting it.
public struct ImageDescription: Sendable {
    public var format: String
    public var brands: [String] = []
    /// Upright size (after HEIF transforms; JPEG and PNG as stored).
    public var width = 0
    public var height = 0
    public var bitDepth = 8
    public var hasAlpha = false
    public var exifOrientation: Int?
    public var colour: String = "none (viewers assume sRGB)"
    public var exifFields: [(String, String)] = []
    public var exifBytes = 0
    public var xmpBytes = 0
    /// One line per thing inside a HEIF file: images, thumbnails, auxiliary images, references.
    public var contents: [String] = []
    public var notes: [String] = []
}

public enum ImageInspector {
    public static func inspect(_ file: [UInt8]) throws -> ImageDescription {
        switch try FormatSniffer.sniff(file).get() {
        case .heif(let major, let compatible):
            return try inspectHeif(file, major: major, compatible: compatible)
        case .jpeg:
            let (width, height) = try JPEGDecoder.dimensions(of: file)
            let (metadata, warnings) = JPEGMarkers.metadata(in: file)
            var description = describe(metadata, format: "JPEG", width: width, height: height)
            description.notes += warnings
            return description
        case .png:
            let (pixels, metadata) = try PNGDecoder.decode(file, maxPixels: Int.max)
            var description = describe(metadata, format: "PNG", width: pixels.width, height: pixels.height)
            description.hasAlpha = pixels.hasAlpha
            return description
        case .webp:
            let webp = try WebPContainer(file)
            var description = describe(webp.metadata, format: "WebP (\(webp.kind.rawValue))", width: webp.width, height: webp.height)
            description.hasAlpha = webp.hasAlpha
            if webp.kind == .animated {
                description.contents = ["\(webp.frameCount) frame\(webp.frameCount == 1 ? "" : "s") (the first is converted)"]
            }
            description.notes += webp.warnings
            return description
        }
    }

    private static func describe(_ metadata: ImageMetadata, format: String, width: Int, height: Int) -> ImageDescription {
        var description = ImageDescription(format: format, width: width, height: height)
        if let exif = metadata.exif {
            description.exifBytes = exif.count
            description.exifOrientation = Exif.orientation(in: exif)
            description.exifFields = ExifSummary.fields(of: exif)
        }
        description.xmpBytes = metadata.xmp?.count ?? 0
        if let icc = metadata.icc { description.colour = "ICC profile \"\(iccDescription(icc))\", \(icc.count) bytes" }
        return description
    }

    private static func inspectHeif(_ file: [UInt8], major: String, compatible: [String]) throws -> ImageDescription {
        let context = try HeifContext(file, threads: 1)
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }
        var description = ImageDescription(format: major.hasPrefix("avi") || compatible.contains("avif") ? "AVIF" : "HEIF")
        description.brands = [major] + compatible
        description.width = Int(heif_image_handle_get_width(handle))
        description.height = Int(heif_image_handle_get_height(handle))
        description.bitDepth = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        description.hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        let stored = (Int(heif_image_handle_get_ispe_width(handle)), Int(heif_image_handle_get_ispe_height(handle)))
        if stored != (description.width, description.height) {
            description.notes.append("stored as \(stored.0)x\(stored.1); irot/imir/clap make it \(description.width)x\(description.height) upright")
        }
        // Metadata as the decoder extracts it, so info and convert agree.
        let metadata: ImageMetadata
        var warnings: [String] = []
        metadata = HeifDecoder.metadata(handle: handle, image: nil, warnings: &warnings)
        description.notes += warnings
        let described = describe(metadata, format: description.format, width: description.width, height: description.height)
        description.exifBytes = described.exifBytes
        description.exifFields = described.exifFields
        description.exifOrientation = described.exifOrientation
        description.xmpBytes = described.xmpBytes
        if let icc = HeifDecoder.rawProfile(handle: handle) {
            description.colour = "ICC profile \"\(iccDescription(icc))\", \(icc.count) bytes"
        } else if let nclx = HeifDecoder.nclxProfile(handle: handle) {
            description.colour = "nclx primaries \(nclx.primaries), transfer \(nclx.transfer), matrix \(nclx.matrix)\(nclx.fullRange ? ", full range" : "")"
        } else {
            description.colour = "no profile on the primary image (grid tiles may carry one; convert uses it)"
        }
        if description.exifOrientation.map({ $0 != 1 }) ?? false {
            description.notes.append("EXIF Orientation is informational in HEIF; the irot/imir boxes decide, and outputs get Orientation 1")
        }
        description.contents = heifContents(context: context, primary: handle)
        description.contents += HeifStructure(file).map(\.summaryLines) ?? []
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

    /// The profile's 'desc' text, or "unnamed".
    static func iccDescription(_ icc: [UInt8]) -> String {
        guard icc.count >= 132 else { return "unnamed" }
        func u32(_ o: Int) -> Int { o + 4 <= icc.count ? Int(icc[o]) << 24 | Int(icc[o + 1]) << 16 | Int(icc[o + 2]) << 8 | Int(icc[o + 3]) : 0 }
        let count = min(u32(128), 100)
        for i in 0..<count {
            let entry = 132 + i * 12
            guard entry + 12 <= icc.count, Array(icc[entry..<entry + 4]) == Array("desc".utf8) else { continue }
            let offset = u32(entry + 4), size = u32(entry + 8)
            guard offset + 12 <= icc.count, size >= 12, offset + size <= icc.count else { return "unnamed" }
            let type = String(decoding: icc[offset..<offset + 4], as: UTF8.self)
            if type == "desc" {
                let length = min(u32(offset + 8), size - 12)
                return String(decoding: icc[(offset + 12)..<(offset + 12 + max(length - 1, 0))], as: UTF8.self)
            }
            if type == "mluc", offset + 28 <= icc.count {
                let length = u32(offset + 20), start = offset + u32(offset + 24)
                guard start + length <= icc.count else { return "unnamed" }
                let utf16 = stride(from: start, to: start + length - 1, by: 2).map { UInt16(icc[$0]) << 8 | UInt16(icc[$0 + 1]) }
                return String(decoding: utf16, as: UTF16.self)
            }
        }
        return "unnamed"
    }
}
