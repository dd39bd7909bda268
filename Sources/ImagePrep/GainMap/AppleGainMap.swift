import Foundation

/// Apple's gain maps (HEIC auxiliary image, JPEG MPF image): the headroom H from the MakerNote or the
/// map's own XMP, and the exact conversion of the map to Ultra HDR terms.
///
/// Apple renders HDR = SDR · (1 + (H − 1) · g), g the map sample through the inverse Rec.709 curve.
/// Ultra HDR with GainMapMin 0, GainMapMax log2 H, gamma 1 and offsets 0 renders SDR · H^v, so
/// v = log2(1 + (H − 1) · g) / log2 H gives the same picture.
enum AppleGainMap {
    static let xmpNamespace = "http://ns.apple.com/HDRGainMap/1.0/"

    /// H from the map's XMP when it is version 2 or later (`HDRGainMapHeadroom`, linear, as libavif
    /// and Skia read it), else from the MakerNote; nil when neither says.
    static func headroom(mapXMP: [UInt8]?, exif: [UInt8]?) -> Double? {
        if let mapXMP, let version = XMPValues.number("HDRGainMapVersion", namespace: xmpNamespace, in: mapXMP),
           version >= 131072, let headroom = XMPValues.number("HDRGainMapHeadroom", namespace: xmpNamespace, in: mapXMP),
           headroom.isFinite, headroom > 0 {
            return headroom
        }
        guard let exif, let tags = makerNoteHeadroomTags(exif) else { return nil }
        return headroom(tag33: tags.tag33, tag48: tags.tag48)
    }

    /// The formula libavif, libultrahdr and Skia share (tag 33 HDRHeadroom, tag 48 HDRGain).
    static func headroom(tag33: Double, tag48: Double) -> Double {
        let stops: Double = if tag33 < 1 {
            tag48 <= 0.01 ? -20 * tag48 + 1.8 : -0.101 * tag48 + 1.601
        } else {
            tag48 <= 0.01 ? -70 * tag48 + 3 : -0.303 * tag48 + 2.303
        }
        return exp2(max(stops, 0))
    }

    /// The 256-entry table that turns Apple map samples into Ultra HDR samples for headroom H.
    static func conversionTable(headroom: Double) -> [UInt8] {
        let stops = log2(headroom)
        return (0..<256).map { value in
            let g = inverseRec709(Double(value) / 255)
            let v = 255 * log2(1 + (headroom - 1) * g) / stops
            return UInt8(min(255, max(0, v.rounded())))
        }
    }

    /// The Ultra HDR values of a converted map.
    static func metadata(headroom: Double) -> GainMapMetadata {
        let stops = log2(headroom)
        return GainMapMetadata(gainMapMin: 0, gainMapMax: stops, gamma: 1, offsetSDR: 0, offsetHDR: 0,
                               hdrCapacityMin: 0, hdrCapacityMax: stops)
    }

    /// An Apple map plane as a gain map, at half its stored size (a quarter of the picture's sides, as
    /// libultrahdr writes maps: Apple's half-size map at quality 85 was 40% of a 1 MB budget); nil
    /// when H ≤ 1 (nothing to keep) or unknown.
    static func gainMap(plane: GainMapPlane, headroom: Double?, origin: GainMapOrigin) -> GainMap? {
        guard let headroom, headroom.isFinite, headroom > 1 else { return nil }
        let table = conversionTable(headroom: headroom)
        let converted = GainMapPlane(width: plane.width, height: plane.height, pixels: plane.pixels.map { table[Int($0)] })
        let halved = converted.resized(width: max(1, (plane.width + 1) / 2), height: max(1, (plane.height + 1) / 2), threads: 1)
        return GainMap(plane: halved, metadata: metadata(headroom: headroom), origin: origin)
    }

    static func inverseRec709(_ v: Double) -> Double {
        v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
    }

    /// Tags 33 and 48 of an Apple MakerNote ("Apple iOS\0", version, "MM", then a big-endian IFD whose
    /// offsets count from the MakerNote's start); a missing tag 48 reads as 0.
    static func makerNoteHeadroomTags(_ exif: [UInt8]) -> (tag33: Double, tag48: Double)? {
        guard let tiff = try? TIFFBlock(exif), let ifd0 = try? tiff.directory(at: tiff.ifd0Offset, "IFD0"),
              let pointer = ifd0.entry(TIFFBlock.exifPointerTag), let exifIFD = try? tiff.subdirectory(pointer, "ExifIFD"),
              let makerNoteEntry = exifIFD.entry(0x927C), let range = try? tiff.valueRange(makerNoteEntry) else { return nil }
        let note = Array(tiff.bytes[range])
        guard note.starts(with: Array("Apple iOS".utf8) + [0]), note.count >= 16, note[12] == 0x4D, note[13] == 0x4D else { return nil }
        func u16(_ at: Int) -> Int? { at >= 0 && at + 2 <= note.count ? Int(note[at]) << 8 | Int(note[at + 1]) : nil }
        func u32(_ at: Int) -> Int? { guard let hi = u16(at), let lo = u16(at + 2) else { return nil }; return hi << 16 | lo }
        func rational(_ entry: Int) -> Double? {
            guard let type = u16(entry + 2), type == 5 || type == 10, let offset = u32(entry + 8),
                  let numerator = u32(offset), let denominator = u32(offset + 4), denominator != 0 else { return nil }
            let n = type == 10 ? Double(Int32(truncatingIfNeeded: numerator)) : Double(numerator)
            let d = type == 10 ? Double(Int32(truncatingIfNeeded: denominator)) : Double(denominator)
            return d == 0 ? nil : n / d
        }
        guard let count = u16(14), 16 + 12 * count <= note.count else { return nil }
        var tag33: Double?, tag48: Double?
        for index in 0..<count {
            let entry = 16 + 12 * index
            switch u16(entry) {
            case 33: tag33 = rational(entry)
            case 48: tag48 = rational(entry)
            default: break
            }
        }
        guard let tag33 else { return nil }
        return (tag33, tag48 ?? 0)
    }
}
