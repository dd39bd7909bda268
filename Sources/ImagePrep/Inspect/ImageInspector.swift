import Foundation

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
    /// The EXIF GPS latitude and longitude, when both are there and in range.
    public var gpsPosition: GPSPosition?
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
    /// 1 for a grey map, 3 for a colour one, when known.
    public var channels: Int?
    /// Whether red, green and blue each have values of their own.
    public var perChannelValues: Bool

    init(_ reading: GainMapReading, origin: GainMapOrigin, bytes: Int?) {
        kind = origin.rawValue
        width = reading.storedSize?.width
        height = reading.storedSize?.height
        channels = reading.storedChannels
        perChannelValues = reading.perChannelValues
        self.bytes = bytes
        headroom = reading.headroom
    }

    /// One line for `info`.
    public var text: String {
        var parts = [kind]
        if let width, let height { parts.append("\(width)x\(height)") }
        switch channels {
        case 1: parts.append("grey")
        case 3: parts.append("colour")
        default: break
        }
        if perChannelValues { parts.append("values per channel") }
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

/// The framework of `info`: each format's inspector is in its folder (`Formats/<NAME>/…Inspector.swift`),
/// reached through its reader's `describe`, and builds on `describe(_:format:width:height:)` here.
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

    static func describeBlocks(_ metadata: ImageMetadata, into description: inout ImageDescription) {
        if let exif = metadata.exif {
            description.exifBytes = exif.count
            description.exifOrientation = Exif.orientation(in: exif)
            let summary = ExifSummary.read(exif)
            description.exifFields = summary.fields.map { ExifField(label: $0.0, value: $0.1) }
            description.gpsPosition = summary.position
        }
        description.xmpBytes = metadata.xmp?.count ?? 0
        description.iptcBytes = metadata.iptc?.count ?? 0
        description.comments = metadata.comments.map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The profile's 'desc' text, or "unnamed". Only what comes before a NUL: writers end the text with
    /// one, or several, inside the length they give (`"sRGB IEC61966-2.1\0"`), and what follows is padding.
    static func iccDescription(_ icc: [UInt8]) -> String {
        let text = iccDescriptionText(icc)
        let shown = String(text.unicodeScalars.prefix { $0 != "\0" })
        return shown.isEmpty ? "unnamed" : shown
    }

    private static func iccDescriptionText(_ icc: [UInt8]) -> String {
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
