/// Reads the metadata segments of a JPEG file without decoding it.
public enum JPEGMarkers {
    /// EXIF (first "Exif" APP1, without its "Exif\0\0" header), XMP (first standard XMP APP1, and the
    /// extended XMP its xmpNote:HasExtendedXMP names), the ICC profile (all APP2 "ICC_PROFILE" chunks, joined in
    /// sequence order), the Photoshop resources holding IPTC (every APP13 "Photoshop 3.0" segment, joined
    /// in file order) and the comments (COM) found between SOI and the first SOS. A profile whose chunks
    /// are missing or inconsistent, or that ICCProfileCheck refuses, is dropped with a warning. Never traps, whatever the bytes.
    public static func metadata(in jpeg: [UInt8]) -> (ImageMetadata, warnings: [String]) {
        metadata(in: jpeg, profileModels: nil)
    }

    /// - Parameter profileModels: what the ICC profile must describe, when not the pixels (a gain map's
    ///   profile describes the HDR rendition: RGB).
    static func metadata(in jpeg: [UInt8], profileModels: [ICCColourModel]?) -> (ImageMetadata, warnings: [String]) {
        var metadata = ImageMetadata()
        var iccChunks: [ICCChunk] = []
        var extendedChunks: [ExtendedXMP.Chunk] = []
        var uncarried: [String] = []
        var components: Int?
        var warnings = forEachSegment(in: jpeg) { marker, payload in
            switch marker {
            case 0xC0...0xCF where ![0xC4, 0xC8, 0xCC].contains(marker):   // SOFn (not DHT, JPG, DAC)
                if components == nil, payload.count > 5 { components = Int(payload[5]) }
            case JPEGSegment.app1 where payload.starts(with: ExtendedXMP.header):
                if let chunk = ExtendedXMP.Chunk(payload: payload) { extendedChunks.append(chunk) } else { uncarried.append("a damaged extended XMP segment") }
            case JPEGSegment.app13 where payload.starts(with: JPEGSegment.photoshopHeader):
                metadata.iptc = (metadata.iptc ?? []) + payload.dropFirst(JPEGSegment.photoshopHeader.count)
            case JPEGSegment.comment:
                metadata.comments.append(payload)
            case JPEGSegment.app1 where payload.starts(with: JPEGSegment.exifHeader):
                if metadata.exif == nil { metadata.exif = Array(payload.dropFirst(JPEGSegment.exifHeader.count)) }
            case JPEGSegment.app1 where payload.starts(with: JPEGSegment.xmpHeader):
                if metadata.xmp == nil { metadata.xmp = Array(payload.dropFirst(JPEGSegment.xmpHeader.count)) }
            case JPEGSegment.app2 where payload.starts(with: JPEGSegment.iccHeader):
                let header = JPEGSegment.iccHeader.count
                guard payload.count >= header + 2 else {
                    iccChunks.append(ICCChunk(sequence: 0, count: 0, data: []))   // marks the set bad
                    return
                }
                iccChunks.append(ICCChunk(sequence: Int(payload[header]), count: Int(payload[header + 1]),
                                          data: Array(payload.dropFirst(header + 2))))
            default:
                if let name = uncarriedName(marker: marker, payload: payload) { uncarried.append(name) }
            }
        }
        if !extendedChunks.isEmpty {
            switch ExtendedXMP.reassemble(extendedChunks, mainXMP: metadata.xmp) {
            case .success(let extended):
                metadata.extendedXMP = extended
                if extendedChunks.contains(where: { $0.guid != extended.guid }) { uncarried.append("extended XMP of another GUID") }
            case .failure(let problem): warnings.append("extended XMP dropped: \(problem.description)")
            }
        }
        metadata.uncarriedSegments = Self.counted(uncarried)
        if !iccChunks.isEmpty {
            switch ICCChunk.reassemble(iccChunks) {
            case .success(let profile): metadata.setICC(profile, for: profileModels ?? colourModels(components: components), warnings: &warnings)
            case .failure(let problem): metadata.dropICC(because: problem.reason, warnings: &warnings)
            }
        }
        return (metadata, warnings)
    }

    /// What the frame's component count stores: 1 gray, 4 CMYK (or YCCK), otherwise Y'CbCr from RGB. Without a
    /// frame header (the file fails to decode anyway) RGB.
    private static func colourModels(components: Int?) -> [ICCColourModel] {
        switch components {
        case 1: [.gray]
        case 4: [.cmyk]
        default: [.rgb]
        }
    }

    /// The file's quality on libjpeg's scale, from its quantisation tables: the lower of the quality whose
    /// standard luminance table has the same sum as table 0, and the quality whose standard luminance and
    /// chrominance tables together have the sum of tables 0 and 1 (sums, so zigzag order does not
    /// matter). Exact for tables scaled from libjpeg's, whatever wrote them (most cameras); for tables of
    /// other shapes it stays at or below ImageMagick's `%Q` on most files, which also counts a duplicate
    /// third table and so reads some camera files 5-10 too low. Used as the ceiling of a re-encode, so
    /// the tie goes to the lower quality. nil when the file has no table 0.
    public static func estimatedQuality(of jpeg: [UInt8]) -> Int? {
        var sums: [Int: Int] = [:]   // table number -> sum of its 64 steps
        _ = forEachSegment(in: jpeg) { marker, payload in
            guard marker == 0xDB else { return }
            // One DQT segment may hold several tables: Pq/Tq byte, then 64 steps of 1 or 2 bytes.
            var i = 0
            while i < payload.count {
                let wide = payload[i] >> 4 == 1, table = Int(payload[i] & 0x0F)
                let size = 64 * (wide ? 2 : 1)
                guard payload.count - (i + 1) >= size else { return }
                let steps = (0..<64).map { k in
                    wide ? Int(payload[i + 1 + 2 * k]) << 8 | Int(payload[i + 2 + 2 * k]) : Int(payload[i + 1 + k])
                }
                if sums[table] == nil { sums[table] = steps.reduce(0, +) }
                i += 1 + size
            }
        }
        guard let luminance = sums[0] else { return nil }
        func nearest(_ sum: Int, _ standard: (Int) -> Int) -> Int {
            (1...100).min { abs(standard($0) - sum) < abs(standard($1) - sum) } ?? 1
        }
        let byLuminance = nearest(luminance) { standardSum(standardLuminance, quality: $0) }
        guard let chrominance = sums[1] else { return byLuminance }
        let byBoth = nearest(luminance + chrominance) {
            standardSum(standardLuminance, quality: $0) + standardSum(standardChrominance, quality: $0)
        }
        return min(byLuminance, byBoth)
    }

    /// The name of a segment that is metadata no output carries, or nil for what is carried or is part of
    /// the picture's coding (JFIF, tables, frame headers, Adobe's colour-transform flag).
    static func uncarriedName(marker: UInt8, payload: [UInt8]) -> String? {
        guard (0xE0...0xEF).contains(marker) else { return nil }
        let identifier = String(decoding: payload.prefix(32).prefix { (0x20...0x7E).contains($0) }, as: UTF8.self)
        switch marker {
        case 0xE0 where identifier.hasPrefix("JFIF"): return nil
        case 0xEE where identifier.hasPrefix("Adobe"): return nil
        default: return "APP\(marker - 0xE0)" + (identifier.isEmpty ? "" : " \"\(identifier)\"")
        }
    }

    /// "APP2 "MPF"", "APP11 "JP" (3 segments)": each name once, in first-seen order.
    private static func counted(_ names: [String]) -> [String] {
        var order: [String] = [], counts: [String: Int] = [:]
        for name in names {
            if counts[name] == nil { order.append(name) }
            counts[name, default: 0] += 1
        }
        return order.map { counts[$0] == 1 ? $0 : "\($0) (\(counts[$0] ?? 0) segments)" }
    }

    /// Whether the frame is progressive (SOF2, or the arithmetic-coded SOF10; with SOF6/SOF14 their
    /// hierarchical variants), so a lossless re-write can keep it so.
    public static func isProgressive(_ jpeg: [UInt8]) -> Bool {
        var progressive = false
        _ = forEachSegment(in: jpeg) { marker, _ in
            if [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) { progressive = true }
        }
        return progressive
    }

    /// Sum of a libjpeg table at `quality` (jpeg_quality_scaling + jpeg_add_quant_table, baseline).
    static func standardSum(_ table: [Int], quality: Int) -> Int {
        let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
        return table.reduce(0) { $0 + min(max(($1 * scale + 50) / 100, 1), 255) }
    }

    private static let standardLuminance = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]

    private static let standardChrominance = [
        17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
        47, 66, 99, 99, 99, 99, 99, 99,
    ] + [Int](repeating: 99, count: 32)

    /// Walks the segments from SOI to the first SOS, calling `visit` with each marker and payload.
    /// Returns warnings about the structure. Bounds-checked: never traps, whatever the bytes.
    static func forEachSegment(in jpeg: [UInt8], _ visit: (UInt8, [UInt8]) -> Void) -> [String] {
        guard jpeg.count >= 2, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return ["not a JPEG file (no SOI marker)"] }
        var warnings: [String] = []
        var junkBytes = 0
        var i = 2
        walk: while i < jpeg.count {
            guard jpeg[i] == 0xFF else {
                junkBytes += 1   // libjpeg skips stray bytes between segments too
                i += 1
                continue
            }
            var m = i + 1
            while m < jpeg.count, jpeg[m] == 0xFF { m += 1 }   // fill bytes
            guard m < jpeg.count else { break }
            let marker = jpeg[m]
            i = m + 1
            switch marker {
            case 0xDA, 0xD9:   // SOS: picture data follows; EOI: nothing does
                break walk
            case 0x00:         // a stuffed zero is not a marker
                junkBytes += 2
            case 0x01, 0xD0...0xD8:   // TEM, RSTn and a stray SOI have no length field
                continue walk
            default:
                guard i + 2 <= jpeg.count else {
                    warnings.append("JPEG file ends inside a segment header")
                    break walk
                }
                let length = Int(jpeg[i]) << 8 | Int(jpeg[i + 1])
                guard length >= 2, i + length <= jpeg.count else {
                    warnings.append("JPEG segment 0xFF\(String(marker, radix: 16, uppercase: true)) runs past the end of the file")
                    break walk
                }
                visit(marker, Array(jpeg[(i + 2)..<(i + length)]))
                i += length
            }
        }
        if junkBytes > 0 { warnings.insert("skipped \(junkBytes) stray bytes between JPEG segments", at: 0) }
        return warnings
    }
}

/// One APP2 "ICC_PROFILE" segment's share of a profile.
struct ICCChunk {
    struct Inconsistent: Error { var reason: String }

    var sequence: Int   // 1-based
    var count: Int
    var data: [UInt8]

    /// Joins chunks 1...count, each present exactly once and all agreeing on the count.
    static func reassemble(_ chunks: [ICCChunk]) -> Result<[UInt8], Inconsistent> {
        guard let count = chunks.first?.count, count > 0, chunks.allSatisfy({ $0.count == count }) else {
            return .failure(Inconsistent(reason: "its chunks are malformed or disagree on the chunk count"))
        }
        let sorted = chunks.sorted { $0.sequence < $1.sequence }
        guard sorted.map(\.sequence) == Array(1...count) else {
            return .failure(Inconsistent(reason: "chunks \(sorted.map(\.sequence)) found, 1...\(count) expected"))
        }
        return .success(sorted.flatMap(\.data))
    }
}
