import Foundation
import CHeif
import CImageCodecs

/// What `imgprep info` tells about a file: what it is and what it holds, without converting it.
public struct ImageDescription: Sendable, Codable {
    public var format: String
    public var brands: [String] = []
    /// Upright size: HEIF transforms and (for JPEG and PNG) EXIF Orientation applied, as outputs will be.
    public var width = 0
    public var height = 0
    /// The size as stored, when it differs from the upright size.
    public var storedSize: PixelSize?
    public var bitDepth = 8
    public var hasAlpha = false
    public var exifOrientation: Int?
    /// The colour in words: an ICC profile by name, nclx code points by meaning, or none.
    public var colour: String = "none (viewers assume sRGB)"
    /// The ICC profile's name and size, when there is one (on the image or, for a grid, its tiles).
    public var iccProfile: ICCProfileSummary?
    /// The nclx code points, when the colour is given that way.
    public var nclx: NCLXColor?
    public var exifFields: [ExifField] = []
    public var exifBytes = 0
    public var xmpBytes = 0
    /// Bytes of Photoshop resources holding IPTC (0 when none).
    public var iptcBytes = 0
    /// JPEG comments, as text.
    public var comments: [String] = []
    /// One line per thing inside a HEIF file: images, thumbnails, auxiliary images, references.
    public var contents: [String] = []
    /// The HDR gain map, when the file has one.
    public var gainMap: GainMapSummary?
    public var notes: [String] = []
    /// Frames, timing and loops of an animated GIF or WebP (nil for a still picture).
    public var animation: AnimationSummary?
}

/// What `info` tells of an animation.
public struct AnimationSummary: Sendable, Codable, Equatable {
    public var frames: Int
    /// Milliseconds, as played (GIF delays of 0 and 10 ms count as 100 ms, as browsers play them).
    public var totalDuration: Int
    /// Times the whole plays: 0 forever.
    public var plays: Int
    /// The GIF logical screen or the WebP canvas every frame is drawn on.
    public var screen: PixelSize

    /// "12 frames, 1.20 s, plays forever, logical screen 320x240".
    public var summary: String {
        let seconds = String(format: "%.2f", Double(totalDuration) / 1000)
        let loops = plays == 0 ? "plays forever" : "plays \(plays == 1 ? "once" : "\(plays) times")"
        return "\(frames) frames, \(seconds) s, \(loops), logical screen \(screen.width)x\(screen.height)"
    }
}

/// What `info` tells of an HDR gain map.
public struct GainMapSummary: Sendable, Codable, Equatable {
    /// Apple HEIC auxiliary image, Apple JPEG (MPF), Ultra HDR, ISO 21496-1.
    public var kind: String
    /// The map as stored.
    public var width: Int?
    public var height: Int?
    /// The map's own bytes, where the file keeps it as one block (a JPEG's MPF image).
    public var bytes: Int?
    /// How much brighter than SDR white the HDR rendition gets, as a factor (nil when the file does not say).
    public var headroom: Double?
    public var headroomStops: Double? { headroom.map { log2($0) } }

    init(_ reading: GainMapReading, origin: GainMapOrigin, bytes: Int?) {
        kind = origin.rawValue
        width = reading.storedSize?.width
        height = reading.storedSize?.height
        self.bytes = bytes
        headroom = reading.headroom
    }

    /// One line for `info`.
    public var text: String {
        var parts = [kind]
        if let width, let height { parts.append("\(width)x\(height)") }
        if let bytes { parts.append("\(bytes) bytes") }
        if let headroom, let stops = headroomStops {
            let factor = String(format: "%.2f", headroom), inStops = String(format: "%.2f", stops)
            parts.append("headroom \(factor)x (\(inStops) stops)" + (headroom <= 1 ? ", nothing to keep" : ""))
        } else {
            parts.append("headroom not stated")
        }
        return parts.joined(separator: ", ")
    }
}

/// A width and a height in pixels.
public struct PixelSize: Sendable, Codable, Equatable {
    public var width: Int
    public var height: Int
}

/// An ICC profile's name (its `desc` tag) and size.
public struct ICCProfileSummary: Sendable, Codable, Equatable {
    public var name: String
    public var bytes: Int
}

/// One EXIF tag as `info` shows it: a label and libexif's rendering of the value.
public struct ExifField: Sendable, Codable, Equatable {
    public var label: String
    public var value: String
}

public enum ImageInspector {
    /// Refuses what `convert` refuses as broken from the header (no size, a clap larger than the picture),
    /// so info never calls such a file fine; a picture merely too large is described, with a note.
    /// - Parameter onStage: told as each stage starts (sniff, then decode for the rest).
    /// - Throws: an ImagePrepError carrying the stage it failed in.
    public static func inspect(_ file: [UInt8], onStage: (PipelineStage) -> Void = { _ in }) throws -> ImageDescription {
        var stage = PipelineStage.sniff
        do {
            return try inspectStages(file) { next in
                stage = next
                onStage(next)
            }
        } catch {
            throw ImagePrepError.failed(at: stage, error, otherwise: .corrupt)
        }
    }

    private static func inspectStages(_ file: [UInt8], onStage: (PipelineStage) -> Void) throws -> ImageDescription {
        onStage(.sniff)
        let format = try FormatSniffer.sniff(file).get()
        onStage(.decode)
        var description = try describe(file, format: format)
        let header = ImageHeader(width: description.width, height: description.height)
        try header.check(maxPixels: .max)
        let cap = ConversionSettings().maxPixels
        if header.pixelCount > cap {
            description.notes.append("over convert's default --max-pixels of \(cap): convert refuses it unless given a higher limit")
        }
        return description
    }

    /// As the file's reader tells it (`ImageFormatReader.describe`).
    private static func describe(_ file: [UInt8], format: SniffedFormat) throws -> ImageDescription {
        try format.reader.describe(file, format: format)
    }

    /// From the segments alone, and the gain map's MPF index: no scan is decoded.
    static func inspectJPEG(_ file: [UInt8]) throws -> ImageDescription {
        let (width, height) = try JPEGDecoder.dimensions(of: file)
        let (metadata, warnings) = JPEGMarkers.metadata(in: file)
        var description = describe(metadata, format: "JPEG", width: width, height: height)
        description.notes += warnings
        let reading = JPEGGainMapReader.read(file, primaryEXIF: metadata.exif, decodes: false)
        if let origin = reading.origin {
            description.gainMap = GainMapSummary(reading, origin: origin, bytes: MultiPictureFormat.secondaryImages(in: file).first?.count)
            description.notes += reading.warnings + (reading.problem.map { ["the gain map cannot be used: \($0) (imgprep leaves it out)"] } ?? [])
        } else if GainMapClaims.inJPEGHeader(file) {
            description.notes.append("the XMP says there is an Ultra HDR gain map, but the file holds none (imgprep removes the claim)")
        }
        return description
    }

    /// From the RIFF chunks alone.
    static func inspectWebP(_ file: [UInt8]) throws -> ImageDescription {
        let webp = try WebPContainer(file)
        var description = describe(webp.metadata, format: "WebP (\(webp.kind.rawValue))", width: webp.width, height: webp.height)
        description.hasAlpha = webp.hasAlpha
        if webp.kind == .animated {
            description.contents = ["\(webp.frameCount) frame\(webp.frameCount == 1 ? "" : "s") (kept in WebP output; the first is converted to other formats)"]
            description.animation = AnimationSummary(frames: webp.frameCount, totalDuration: webp.totalDuration,
                                                     plays: webp.loopCount, screen: PixelSize(width: webp.width, height: webp.height))
        }
        description.notes += webp.warnings
        return description
    }

    /// From the records alone: no frame is decoded.
    static func inspectGIF(_ file: [UInt8]) throws -> ImageDescription {
        let gif = try GIFDecoder.structure(of: file)
        var warnings: [String] = []
        let metadata = gif.metadata(warnings: &warnings)
        let animated = gif.frameCount > 1
        var description = describe(metadata, format: animated ? "GIF (animated)" : "GIF", width: gif.canvas.width, height: gif.canvas.height)
        description.notes += warnings
        description.hasAlpha = gif.header.hasAlpha
        if animated {
            description.animation = AnimationSummary(frames: gif.frameCount, totalDuration: gif.playedDuration,
                                                     plays: GIFDecoder.webpLoopCount(gif.loopCount),
                                                     screen: PixelSize(width: gif.screenWidth, height: gif.screenHeight))
            description.contents = ["\(gif.frameCount) frames (kept in WebP output; the first is converted to other formats)"]
        }
        if gif.endsEarly { description.notes.append("the records are damaged or cut short after frame \(gif.frameCount)") }
        return description
    }

    /// From the chunks alone: a PNG's picture data is never inflated to learn its size.
    static func inspectPNG(_ file: [UInt8]) throws -> ImageDescription {
        var image = cic_png_image()
        defer { cic_png_image_free(&image) }
        var bitDepth: Int32 = 0
        try callCodec("libpng") { err, errlen in
            file.withUnsafeBufferPointer { cic_png_read_info($0.baseAddress, $0.count, &image, &bitDepth, err, errlen) }
        }
        var warnings: [String] = []
        let metadata = PNGDecoder.metadata(of: image, warnings: &warnings)   // as convert reads it
        var description = describe(metadata, format: "PNG", width: Int(image.width), height: Int(image.height))
        description.bitDepth = Int(bitDepth)
        description.hasAlpha = image.channels == 4
        description.notes += warnings
        return description
    }

    /// What the metadata says, for a picture stored `width` x `height` whose EXIF Orientation still applies.
    static func describe(_ metadata: ImageMetadata, format: String, width: Int, height: Int) -> ImageDescription {
        var description = ImageDescription(format: format, width: width, height: height)
        describeBlocks(metadata, into: &description)
        if let orientation = description.exifOrientation.map(ExifOrientation.init(exifValue:)), orientation.swapsDimensions {
            (description.width, description.height) = (height, width)
            description.storedSize = PixelSize(width: width, height: height)
        }
        if let icc = metadata.icc {
            description.setICC(icc, where: "")
        } else if let problem = metadata.droppedICC {
            description.setInvalidICC(problem)
        }
        return description
    }

    private static func describeBlocks(_ metadata: ImageMetadata, into description: inout ImageDescription) {
        if let exif = metadata.exif {
            description.exifBytes = exif.count
            description.exifOrientation = Exif.orientation(in: exif)
            description.exifFields = ExifSummary.fields(of: exif).map { ExifField(label: $0.0, value: $0.1) }
        }
        description.xmpBytes = metadata.xmp?.count ?? 0
        description.iptcBytes = metadata.iptc?.count ?? 0
        description.comments = metadata.comments.map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func inspectHeif(_ file: [UInt8], isAVIF: Bool, brands: [String]) throws -> ImageDescription {
        let context = try HeifContext(file, threads: 1)
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }
        _ = try HeifDecoder.header(of: handle)   // what convert refuses, info refuses
        var description = ImageDescription(format: isAVIF ? "AVIF" : "HEIF")
        description.brands = brands
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

extension ImageDescription {
    /// A profile ICCProfileCheck refused: named as invalid, not described (convert drops it).
    mutating func setInvalidICC(_ problem: String) {
        colour = "none usable: the ICC profile is invalid and dropped (\(problem)); viewers assume sRGB"
    }

    mutating func setICC(_ icc: [UInt8], where place: String) {
        let name = ImageInspector.iccDescription(icc)
        iccProfile = ICCProfileSummary(name: name, bytes: icc.count)
        colour = "ICC profile \"\(name)\", \(icc.count) bytes\(place)"
    }

    mutating func setNCLX(_ color: NCLXColor, where place: String) {
        nclx = color
        colour = color.summary + place
    }
}
