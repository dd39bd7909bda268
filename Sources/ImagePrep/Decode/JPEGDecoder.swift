import CImageCodecs

/// Decodes JPEG files with libjpeg-turbo to 8-bit RGB, whatever the source colour space.
/// Missing or damaged picture data is an error, never a grey-filled image.
public enum JPEGDecoder {
    /// The image size from the headers alone: cheap, for a pixel-cap check before decoding.
    public static func dimensions(of file: [UInt8]) throws -> (width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0, components: Int32 = 0
        try callCodec("libjpeg") { err, errlen in
            file.withUnsafeBufferPointer {
                cic_jpeg_read_header($0.baseAddress, $0.count, &width, &height, &components, err, errlen)
            }
        }
        return (Int(width), Int(height))
    }

    /// Decodes to 3-channel RGB. A `scaleDenominator` of 2, 4 or 8 has libjpeg decode straight to
    /// about 1/N of the size (rounded up), far cheaper than decoding everything and shrinking after.
    public static func decode(_ file: [UInt8], scaleDenominator: Int = 1) throws -> PixelBuffer {
        precondition([1, 2, 4, 8].contains(scaleDenominator), "JPEG scale denominator must be 1, 2, 4 or 8")
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        defer { cic_free(pixels) }
        try callCodec("libjpeg") { err, errlen in
            file.withUnsafeBufferPointer {
                cic_jpeg_decode($0.baseAddress, $0.count, Int32(scaleDenominator),
                                &pixels, &width, &height, err, errlen)
            }
        }
        guard let pixels else { throw ImagePrepError.library("libjpeg", "decoder returned no pixels") }
        let count = Int(width) * Int(height) * 3
        return PixelBuffer(width: Int(width), height: Int(height), channels: 3,
                           pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }

    /// The Y'CbCr 4:2:0 planes as stored, or nil when the file is laid out otherwise: a JPEG that is
    /// re-encoded at its own size then skips colour conversion and chroma resampling both ways.
    public static func decodePlanes(_ file: [UInt8]) throws -> YCbCr420Image? {
        var planes: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        var notPlanar = false
        try callCodec("libjpeg") { err, errlen in
            let status = file.withUnsafeBufferPointer {
                cic_jpeg_decode_ycbcr420($0.baseAddress, $0.count, &planes, &width, &height, err, errlen)
            }
            notPlanar = status == CIC_NOT_YCBCR420
            return notPlanar ? 0 : status
        }
        guard !notPlanar else { return nil }
        guard let planes else { throw ImagePrepError.library("libjpeg", "decoder returned no pixels") }
        let owner = CodecBuffer(planes)
        return YCbCr420Image(packed: UnsafeRawPointer(planes), width: Int(width), height: Int(height), owner: owner)
    }
}

/// Owns a buffer our C code allocated.
final class CodecBuffer {
    private let pointer: UnsafeMutablePointer<UInt8>

    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
    deinit { cic_free(pointer) }
}

/// Reads the metadata segments of a JPEG file without decoding it.
public enum JPEGMarkers {
    /// EXIF (first "Exif" APP1, without its "Exif\0\0" header), XMP (first standard XMP APP1;
    /// extended XMP is ignored) and the ICC profile (all APP2 "ICC_PROFILE" chunks, joined in
    /// sequence order) found between SOI and the first SOS. A profile whose chunks are missing or
    /// inconsistent is dropped with a warning. Never traps, whatever the bytes.
    public static func metadata(in jpeg: [UInt8]) -> (ImageMetadata, warnings: [String]) {
        var metadata = ImageMetadata()
        var iccChunks: [ICCChunk] = []
        var warnings = forEachSegment(in: jpeg) { marker, payload in
            switch marker {
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
                break
            }
        }
        if !iccChunks.isEmpty {
            switch ICCChunk.reassemble(iccChunks) {
            case .success(let profile): metadata.icc = profile
            case .failure(let problem): warnings.append("ICC profile dropped: \(problem.reason)")
            }
        }
        return (metadata, warnings)
    }

    /// The libjpeg quality whose standard luminance table is closest to the file's first quantisation
    /// table (by sum, so zigzag order does not matter). Cameras use their own tables, so this is an
    /// estimate, good enough to aim the first encode of a quality search.
    public static func estimatedQuality(of jpeg: [UInt8]) -> Int? {
        var sum: Int?
        _ = forEachSegment(in: jpeg) { marker, payload in
            guard marker == 0xDB, sum == nil, let first = payload.first, first & 0x0F == 0 else { return }
            let wide = first >> 4 == 1
            guard payload.count >= 1 + 64 * (wide ? 2 : 1) else { return }
            sum = (0..<64).reduce(0) { (total: Int, i: Int) -> Int in
                let step: Int = wide ? Int(payload[1 + 2 * i]) << 8 | Int(payload[2 + 2 * i]) : Int(payload[1 + i])
                return total + step
            }
        }
        guard let sum else { return nil }
        return (1...100).min { abs(standardLuminanceSum(quality: $0) - sum) < abs(standardLuminanceSum(quality: $1) - sum) }
    }

    /// Sum of libjpeg's luminance table at `quality` (jpeg_quality_scaling + jpeg_add_quant_table, baseline).
    static func standardLuminanceSum(quality: Int) -> Int {
        let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
        return standardLuminance.reduce(0) { $0 + min(max(($1 * scale + 50) / 100, 1), 255) }
    }

    private static let standardLuminance = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]

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

/// Runs a CImageCodecs call and turns its nonzero result into `ImagePrepError.library`.
func callCodec(_ library: String, kind: ImagePrepError.Kind = .corrupt,
               _ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
    var message = [CChar](repeating: 0, count: 512)
    let status = message.withUnsafeMutableBufferPointer { buffer in
        // A non-empty array always has a base address.
        call(buffer.baseAddress!, buffer.count)
    }
    if status != 0 {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw ImagePrepError.library(library, text, kind: kind)
    }
}
