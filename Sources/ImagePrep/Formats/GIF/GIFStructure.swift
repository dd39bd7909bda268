/// A GIF's records as its bytes lay them out, read in Swift without decoding any pixel: the logical
/// screen, every image descriptor with the Graphics Control Extension before it, the loop count, comments,
/// XMP and ICC. Image data is skipped sub-block by sub-block, so the whole walk costs one pass over the
/// bytes and allocates nothing in proportion to the pixels: the limits are checked on this before giflib
/// decodes anything. Bounds-checked throughout: a record cut short ends the walk.
struct GIFStructure {
    /// How a frame leaves the canvas for the next one (GIF89a disposal methods 0-3; 4-7 are undefined
    /// and, as in browsers, act as `keep`).
    enum Disposal: Equatable { case keep, background, previous }

    struct Image: Equatable {
        var left: Int, top: Int, width: Int, height: Int
        var interlaced: Bool
        /// Entries of the local colour table, if the image has one.
        var localPaletteSize: Int?
        /// From the Graphics Control Extension before the image (none: keep, 0, no transparency).
        var disposal: Disposal = .keep
        var delayCentiseconds = 0
        var transparentIndex: Int?
    }

    var screenWidth: Int
    var screenHeight: Int
    var globalPaletteSize: Int?
    var images: [Image] = []
    /// The NETSCAPE2.0 (or ANIMEXTS1.0) loop count: 0 forever, nil without the extension (plays once).
    var loopCount: Int?
    var comments: [[UInt8]] = []
    var xmp: [UInt8]?
    var icc: [UInt8]?
    /// The walk stopped at something that is neither a record nor the trailer (a record cut short,
    /// unknown bytes); the images before it are whole.
    var endsEarly = false
    /// The walk stopped counting at this many images (see `init(_:maxImages:)`).
    var hasMoreImages = false

    static let signatures = ["GIF87a", "GIF89a"].map { Array($0.utf8) }

    /// nil when the bytes are not a GIF or its screen descriptor is cut short. Stops after `maxImages`
    /// images (setting `hasMoreImages`), so a file of countless tiny frames costs no more than that.
    init?(_ bytes: [UInt8], maxImages: Int = .max) {
        var reader = LittleEndianReader(bytes)
        guard let signature = reader.bytes(6), Self.signatures.contains(signature),
              let width = reader.u16(), let height = reader.u16(), let flags = reader.u8(),
              reader.u8() != nil, reader.u8() != nil else { return nil }   // background index, aspect ratio
        screenWidth = width
        screenHeight = height
        if flags & 0x80 != 0 {
            globalPaletteSize = 2 << Int(flags & 7)
            guard reader.skip(3 * (2 << Int(flags & 7))) else { endsEarly = true; return }
        }
        var control: (disposal: Disposal, delay: Int, transparent: Int?)?
        walk: while let introducer = reader.u8() {
            switch introducer {
            case 0x21:
                guard let label = reader.u8(), let blocks = reader.subBlocks() else { endsEarly = true; break walk }
                switch label {
                case 0xF9 where blocks.first?.count ?? 0 >= 4:
                    let gce = blocks[0]
                    let method = Int(gce[0] >> 2) & 7
                    control = (method == 2 ? .background : method == 3 ? .previous : .keep,
                               Int(gce[1]) | Int(gce[2]) << 8, gce[0] & 1 != 0 ? Int(gce[3]) : nil)
                case 0xFE:
                    comments.append(blocks.flatMap { $0 })
                case 0xFF:
                    readApplication(blocks)
                default:
                    break
                }
            case 0x2C:
                guard let left = reader.u16(), let top = reader.u16(), let w = reader.u16(), let h = reader.u16(),
                      let flags = reader.u8() else { endsEarly = true; break walk }
                let paletteSize = flags & 0x80 != 0 ? 2 << Int(flags & 7) : nil
                guard reader.skip(3 * (paletteSize ?? 0)), reader.u8() != nil, reader.subBlocks(keeping: false) != nil else {
                    endsEarly = true; break walk
                }
                guard images.count < maxImages else { hasMoreImages = true; break walk }
                var image = Image(left: left, top: top, width: w, height: h, interlaced: flags & 0x40 != 0,
                                  localPaletteSize: paletteSize)
                if let control {
                    (image.disposal, image.delayCentiseconds, image.transparentIndex) = control
                }
                images.append(image)
                control = nil
            case 0x3B:
                break walk
            default:
                endsEarly = true
                break walk
            }
        }
    }

    /// The comments, XMP and checked ICC profile (a palette is RGB), for the decoder and `info` alike.
    func metadata(warnings: inout [String]) -> ImageMetadata {
        var metadata = ImageMetadata(xmp: xmp, comments: comments)
        metadata.setICC(icc, for: [.rgb], warnings: &warnings)
        return metadata
    }

    /// NETSCAPE2.0 / ANIMEXTS1.0 (loop count), "XMP DataXMP" and ICCRGBG1012 (an ICC profile).
    private mutating func readApplication(_ blocks: [[UInt8]]) {
        guard let identifier = blocks.first, identifier.count == 11 else { return }
        switch String(decoding: identifier, as: UTF8.self) {
        case "NETSCAPE2.0", "ANIMEXTS1.0":
            if let data = blocks.dropFirst().first, data.count >= 3, data[0] == 1 { loopCount = Int(data[1]) | Int(data[2]) << 8 }
        case "XMP DataXMP":
            if xmp == nil { xmp = Self.xmpPacket(blocks.dropFirst()) }
        case "ICCRGBG1012":
            if icc == nil { icc = blocks.dropFirst().flatMap { $0 } }
        default:
            break
        }
    }

    /// XMP in GIF is written raw, so its sub-block length bytes are part of the packet, followed by a
    /// 257-byte "magic trailer" that makes any reader's sub-block walk end: put the length bytes back and
    /// cut after the packet's closing `?>`.
    private static func xmpPacket(_ blocks: ArraySlice<[UInt8]>) -> [UInt8]? {
        var raw: [UInt8] = []
        for block in blocks { raw.append(UInt8(block.count)); raw += block }
        guard let start = raw.firstRange(of: Array("<?xpacket begin".utf8))?.lowerBound ?? raw.firstIndex(of: UInt8(ascii: "<")),
              let end = raw.lastRange(of: Array("<?xpacket end".utf8)), end.lowerBound > start,
              let close = raw[end.upperBound...].firstRange(of: Array("?>".utf8)) else { return nil }
        return Array(raw[start..<close.upperBound])
    }

    var frameCount: Int { images.count }

    /// Total delay in milliseconds as browsers play it (see `Animation.playedDuration`).
    var playedDuration: Int { images.reduce(0) { $0 + Animation.playedDuration(centiseconds: $1.delayCentiseconds) } }

    /// The canvas and its frames; alpha when animated or any frame has a transparent colour.
    var header: ImageHeader {
        ImageHeader(width: canvas.width, height: canvas.height,
                    hasAlpha: frameCount > 1 || images.contains { $0.transparentIndex != nil }, frames: frameCount)
    }

    /// The canvas: the logical screen, or (as browsers do) the first image's extent when the screen is 0 wide or high.
    var canvas: (width: Int, height: Int) {
        guard screenWidth == 0 || screenHeight == 0, let first = images.first else { return (screenWidth, screenHeight) }
        return (first.left + first.width, first.top + first.height)
    }
}

private extension Array where Element == UInt8 {
    func lastRange(of pattern: [UInt8]) -> Range<Int>? {
        guard pattern.count <= count else { return nil }
        for start in stride(from: count - pattern.count, through: 0, by: -1) where self[start..<start + pattern.count].elementsEqual(pattern) {
            return start..<start + pattern.count
        }
        return nil
    }
}

/// Reads little-endian fields and GIF sub-block chains from a byte array, never past its end.
struct LittleEndianReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= bytes.count - offset else { return false }
        offset += count
        return true
    }

    mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() -> Int? {
        guard let low = u8(), let high = u8() else { return nil }
        return Int(low) | Int(high) << 8
    }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A chain of sub-blocks up to its zero-length terminator: their contents, or (`keeping` false, for
    /// image data) none, only the walk; nil when the chain runs past the end.
    mutating func subBlocks(keeping: Bool = true) -> [[UInt8]]? {
        var blocks: [[UInt8]] = []
        while let length = u8() {
            if length == 0 { return blocks }
            if keeping {
                guard let block = bytes(Int(length)) else { return nil }
                blocks.append(block)
            } else {
                guard skip(Int(length)) else { return nil }
            }
        }
        return nil
    }
}
