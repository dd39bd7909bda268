import Foundation
import Testing
@testable import ImagePrep

/// Ultra HDR and Apple gain-map JPEGs made in memory, valid or lying in one place each: the map's
/// `hdrgm` values, its ISO 21496-1 block, the primary's claims, the MPF index, the map's channels,
/// Apple's headroom. A 96x64 textured picture with a gradient map that brightens its right side.
enum HostileGainMapFiles {
    struct MapImageFailure: Error, CustomStringConvertible { var description: String }

    static let width = 96, height = 64

    /// The map's `hdrgm` values as text, in the order libultrahdr writes them.
    static let validValues: KeyValuePairs<String, String> = [
        "GainMapMin": "0", "GainMapMax": "2", "Gamma": "1", "OffsetSDR": "0.015625", "OffsetHDR": "0.015625",
        "HDRCapacityMin": "0", "HDRCapacityMax": "2",
    ]
    static let validMetadata = GainMapMetadata(gainMapMin: 0, gainMapMax: 2, gamma: 1, offsetSDR: 0.015625,
                                               offsetHDR: 0.015625, hdrCapacityMin: 0, hdrCapacityMax: 2)

    /// The map's XMP packet: `values` as attributes (a value of nil leaves it out).
    static func mapXMP(version: String? = "1.0", replacing changes: [String: String?] = [:], extra: String = "") -> String {
        var attributes = version.map { "hdrgm:Version=\"\($0)\"" }.map { [$0] } ?? []
        for (name, value) in validValues {
            let changed = changes[name] ?? value
            if let changed { attributes.append("hdrgm:\(name)=\"\(changed)\"") }
        }
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" \(attributes.joined(separator: " ")) hdrgm:BaseRenditionIsHDR="False"\(extra)/>
            </rdf:RDF></x:xmpmeta>
            """
    }

    /// The primary's XMP: version and directory, `LENGTH` standing for the map's size.
    static let primaryXMP = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"
          xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
          hdrgm:Version="1.0"><Container:Directory><rdf:Seq>
          <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>
          <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="LENGTH"/></rdf:li>
        </rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
        """

    static func xmpSegment(_ packet: String) -> JPEGSegment {
        JPEGSegment(marker: JPEGSegment.app1, payload: JPEGSegment.xmpHeader + Array(packet.utf8))
    }

    static func isoSegment(_ payload: [UInt8]) -> JPEGSegment { JPEGSegment(marker: JPEGSegment.app2, payload: payload) }

    /// An explicit single-channel ISO block: (numerator, denominator) for base and alternate headroom,
    /// then min, max, gamma, base offset, alternate offset.
    static func isoPayload(_ fractions: [(Int64, UInt32)], flags: UInt8 = 0x40) -> [UInt8] {
        var bytes = ISOGainMapBlock.header + [0, 0, 0, 0, flags]
        for (numerator, denominator) in fractions {
            bytes += HostileFiles.bigEndian(UInt32(truncatingIfNeeded: numerator)) + HostileFiles.bigEndian(denominator)
        }
        return bytes
    }

    static var validISOFractions: [(Int64, UInt32)] { [(0, 1), (2, 1), (0, 1), (2, 1), (1, 1), (1, 64), (1, 64)] }

    /// The picture: a colour gradient with texture.
    static func picture() -> PixelBuffer {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let noise = (x &* 7919 &+ y &* 104_729) % 48   // texture, so the picture is not almost free to code
                pixels += [UInt8(x * 200 / width + noise), UInt8(y * 200 / height + noise), UInt8(160 + noise)]
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
    }

    /// The map image: grey (a gradient, dark on the left) or, with `channels: 3`, the same in RGB (red
    /// brightening most), or with `channels: 4` as CMYK (ImageMagick converts it; the segments go after SOI).
    static func mapImage(segments: [JPEGSegment], channels: Int = 1) throws -> [UInt8] {
        let mapWidth = width / 2, mapHeight = height / 2
        var settings = JPEGSettings()
        settings.writeJFIF = false
        let samples: [UInt8] = (0..<(mapWidth * mapHeight)).map { (index: Int) -> UInt8 in UInt8((index % mapWidth) * 255 / (mapWidth - 1)) }
        if channels == 1 {
            return try JPEGEncoder(settings: settings).encode(GainMapPlane(width: mapWidth, height: mapHeight, pixels: samples),
                                                              quality: 90, settings: settings, segments: segments)
        }
        if channels == 4 {
            let dir = try TestSupport.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let grey = dir.appendingPathComponent("grey.jpg"), cmyk = dir.appendingPathComponent("cmyk.jpg")
            try Data(try JPEGEncoder(settings: settings).encode(GainMapPlane(width: mapWidth, height: mapHeight, pixels: samples),
                                                                quality: 90, settings: settings)).write(to: grey)
            let run = try TestSupport.run("/usr/bin/convert", [grey.path, "-colorspace", "CMYK", "-strip", cmyk.path])
            guard run.status == 0 else { throw MapImageFailure(description: "ImageMagick made no CMYK map: \(run.stderr)") }
            let made = [UInt8](try Data(contentsOf: cmyk))
            return [0xFF, 0xD8] + segments.flatMap { segment in
                let length = segment.payload.count + 2
                return [0xFF, segment.marker, UInt8(length >> 8), UInt8(length & 0xFF)] + segment.payload
            } + made.dropFirst(2)
        }
        let rgb = PixelBuffer(width: mapWidth, height: mapHeight, channels: 3,
                              pixels: samples.flatMap { [$0, UInt8(Int($0) * 3 / 4), UInt8(Int($0) / 2)] })
        return try JPEGEncoder(settings: settings).encode(rgb, quality: 90, settings: settings, segments: segments)
    }

    /// An Ultra HDR file as libultrahdr lays it out, with the map image's segments and the primary's
    /// own given (the primary's XMP names the map's length where it says `LENGTH`).
    static func ultraHDR(mapSegments: [JPEGSegment]? = nil, mapChannels: Int = 1, primaryXMP: String? = primaryXMP,
                         primarySegments: [JPEGSegment] = []) throws -> [UInt8] {
        let map = try mapImage(segments: mapSegments ?? [xmpSegment(mapXMP()), isoSegment(isoPayload(validISOFractions))],
                               channels: mapChannels)
        var segments = primaryXMP.map { [xmpSegment($0.replacingOccurrences(of: "LENGTH", with: "\(map.count)"))] } ?? []
        segments += primarySegments
        let primary = try JPEGEncoder().encode(picture(), quality: 90, settings: JPEGSettings(), segments: segments)
        return UltraHDRContainer.assemble(primary: primary, map: map)
    }

    /// A plain JPEG (no map) with the given segments.
    static func plain(segments: [JPEGSegment]) throws -> [UInt8] {
        try JPEGEncoder().encode(picture(), quality: 90, settings: JPEGSettings(), segments: segments)
    }

    /// `file` with `junk` inserted as an APP2 segment right after SOI (offsets in a later MPF index
    /// count from that index, so it stays right).
    static func inserting(_ junk: [UInt8], after soi: [UInt8]) -> [UInt8] {
        let length = junk.count + 2
        return [0xFF, 0xD8, 0xFF, JPEGSegment.app2, UInt8(length >> 8), UInt8(length & 0xFF)] + junk + soi.dropFirst(2)
    }

    /// An Apple-style MPF gain-map JPEG: the map image has Apple's HDRGainMap XMP, and the headroom
    /// comes from `mapXMP` or from the primary's MakerNote tags 33 and 48 (signed rationals).
    static func appleMPF(tag33: (Int32, Int32) = (1, 1), tag48: (Int32, Int32) = (0, 1),
                         mapXMP: String = appleMapXMP(version: nil, headroom: nil)) throws -> [UInt8] {
        let map = try mapImage(segments: [xmpSegment(mapXMP)])
        let primary = try JPEGEncoder().encode(picture(), quality: 90, settings: JPEGSettings(),
                                               segments: JPEGSegment.segments(for: ImageMetadata(exif: appleEXIF(tag33: tag33, tag48: tag48))))
        return UltraHDRContainer.assemble(primary: primary, map: map)   // (an ISO version block too: harmless here)
    }

    static func appleMapXMP(version: Int?, headroom: String?) -> String {
        let attributes = [version.map { "HDRGainMap:HDRGainMapVersion=\"\($0)\"" }, headroom.map { "HDRGainMap:HDRGainMapHeadroom=\"\($0)\"" }]
            .compactMap { $0 }.joined(separator: " ")
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/" \(attributes)/>
            </rdf:RDF></x:xmpmeta>
            """
    }

    /// EXIF with an ExifIFD holding an Apple MakerNote ("Apple iOS\0", version, "MM", a big-endian IFD
    /// of tags 33 and 48, offsets from the MakerNote's start).
    static func appleEXIF(tag33: (Int32, Int32), tag48: (Int32, Int32)) -> [UInt8] {
        func be32(_ value: Int32) -> [UInt8] { HostileFiles.bigEndian(UInt32(bitPattern: value)) }
        var note = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8) + HostileFiles.bigEndian16(2)
        let values = 16 + 2 * 12 + 4
        note += HostileFiles.bigEndian16(33) + HostileFiles.bigEndian16(10) + HostileFiles.bigEndian(1) + HostileFiles.bigEndian(UInt32(values))
        note += HostileFiles.bigEndian16(48) + HostileFiles.bigEndian16(10) + HostileFiles.bigEndian(1) + HostileFiles.bigEndian(UInt32(values + 8))
        note += [0, 0, 0, 0] + be32(tag33.0) + be32(tag33.1) + be32(tag48.0) + be32(tag48.1)
        // Little-endian TIFF: IFD0 (one entry: the ExifIFD pointer) at 8, the ExifIFD (one entry: the MakerNote) after it.
        let exifIFD = UInt32(8 + 2 + 12 + 4)
        let noteOffset = exifIFD + 2 + 12 + 4
        var tiff = Array("II".utf8) + [42, 0] + HostileFiles.littleEndian(8)
        tiff += HostileFiles.littleEndian16(1) + HostileFiles.littleEndian16(0x8769) + HostileFiles.littleEndian16(4)
            + HostileFiles.littleEndian(1) + HostileFiles.littleEndian(exifIFD) + HostileFiles.littleEndian(0)
        tiff += HostileFiles.littleEndian16(1) + HostileFiles.littleEndian16(0x927C) + HostileFiles.littleEndian16(7)
            + HostileFiles.littleEndian(UInt32(note.count)) + HostileFiles.littleEndian(noteOffset) + HostileFiles.littleEndian(0)
        return tiff + note
    }

    /// Extended XMP segments for `packet`, and the main packet that names them (GUID = MD5 of the packet).
    static func extendedXMP(_ packet: String, mainAttributes: String = "") -> [JPEGSegment] {
        let bytes = Array(packet.utf8)
        let guid = Array(MD5.digest(bytes).map { String(format: "%02X", $0) }.joined().utf8)
        let main = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmpNote:HasExtendedXMP="\(String(decoding: guid, as: UTF8.self))"\(mainAttributes)/>
            </rdf:RDF></x:xmpmeta>
            """
        return [xmpSegment(main)] + ExtendedXMP(guid: guid, packet: bytes).segments
    }
}

extension HostileGainMapFiles {
    /// A HEIC whose picture is one small tile (`tileFile`: a one-tile heif-enc file, whose mdat is the
    /// tile's data) and whose Apple gain map is a 40x40 `grid` of references to that same tile, with an
    /// `ispe` that says it is as small as the picture: libheif decodes 1600 tiles into a map 40 times
    /// wider and higher than the picture. The headroom comes from an Apple MakerNote in the EXIF.
    static func heicWithGridGainMap(tileFile: [UInt8], tileWidth: UInt32, tileHeight: UInt32) throws -> [UInt8] {
        typealias H = HostileFiles
        let ipco = try #require(ISOBMFF.find(["meta", "iprp", "ipco"], in: tileFile))
        let hvcC = try #require(ISOBMFF.children(of: ipco, in: tileFile).first { $0.type == "hvcC" })
        let mdat = try #require(ISOBMFF.topLevelBoxes(tileFile).first { $0.type == "mdat" })
        let tile = Array(tileFile[mdat.payload])
        let exif = H.bigEndian(0) + appleEXIF(tag33: (1, 1), tag48: (0, 1))
        let side: UInt32 = 40
        func u16(_ v: Int) -> [UInt8] { H.bigEndian16(UInt16(v)) }
        func infe(_ id: Int, _ type: String, hidden: Bool = false) -> [UInt8] {
            H.box("infe", [2, 0, 0, hidden ? 1 : 0] + u16(id) + u16(0) + Array(type.utf8) + [0])
        }
        func reference(_ type: String, from: Int, to: [Int]) -> [UInt8] {
            H.box(type, u16(from) + u16(to.count) + to.flatMap(u16))
        }
        let hdlr = H.fullBox("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = H.fullBox("pitm", u16(2))
        let iinf = H.fullBox("iinf", u16(4) + infe(1, "hvc1", hidden: true) + infe(2, "hvc1") + infe(3, "grid") + infe(4, "Exif"))
        let iref = H.fullBox("iref", reference("dimg", from: 3, to: [Int](repeating: 1, count: Int(side * side)))
                             + reference("auxl", from: 3, to: [2]) + reference("cdsc", from: 4, to: [2]))
        let ispe = H.fullBox("ispe", H.bigEndian(tileWidth) + H.bigEndian(tileHeight))
        let auxC = H.fullBox("auxC", Array(AppleGainMap.auxiliaryType.utf8) + [0])
        let ipcoBox = H.box("ipco", Array(tileFile[hvcC.start..<hvcC.end]) + ispe + auxC)
        // Properties 1 hvcC, 2 ispe, 3 auxC; the high bit marks one essential.
        let ipma = H.fullBox("ipma", H.bigEndian(3) + u16(1) + [2, 0x81, 0x02] + u16(2) + [2, 0x81, 0x02] + u16(3) + [2, 0x02, 0x83])
        let iprp = H.box("iprp", ipcoBox + ipma)
        // The grid: version 0, 32-bit sizes, 40 rows and columns, its output 40 tiles wide and high.
        let grid: [UInt8] = [0, 1, UInt8(side - 1), UInt8(side - 1)] + H.bigEndian(tileWidth * side) + H.bigEndian(tileHeight * side)
        let idat = H.box("idat", grid)
        func iloc(mdatStart: Int) -> [UInt8] {
            func entry(_ id: Int, method: Int, offset: Int, length: Int) -> [UInt8] {
                u16(id) + u16(method) + u16(0) + u16(1) + H.bigEndian(UInt32(offset)) + H.bigEndian(UInt32(length))
            }
            return H.fullBox("iloc", version: 1, [0x44, 0x00] + u16(4)
                             + entry(1, method: 0, offset: mdatStart, length: tile.count)
                             + entry(2, method: 0, offset: mdatStart, length: tile.count)
                             + entry(3, method: 1, offset: 0, length: grid.count)
                             + entry(4, method: 0, offset: mdatStart + tile.count, length: exif.count))
        }
        func meta(mdatStart: Int) -> [UInt8] { H.fullBox("meta", hdlr + pitm + iloc(mdatStart: mdatStart) + iinf + iref + iprp + idat) }
        let mdatStart = H.heicFileType.count + meta(mdatStart: 0).count + 8
        return H.heicFileType + meta(mdatStart: mdatStart) + H.box("mdat", tile + exif)
    }
}
