/// What a JPEG XL file's first bytes tell without libjxl, in bounds-checked Swift: the signature of a
/// bare codestream (`FF 0A`) or of the ISO-BMFF container (a `JXL ` box), the container's boxes, and the
/// codestream's SizeHeader and the start of its ImageMetadata (orientation, alpha) for memory planning.
enum JXLStructure {
    static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    static let containerSignature: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    static func isJXL(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: codestreamSignature) || bytes.starts(with: containerSignature)
    }

    /// One box of the container: its type and where its payload lies in the file.
    struct Box {
        var type: String
        var payload: Range<Int>
        /// The box says it runs past the end of `file`: its payload is cut there.
        var isCut = false
    }

    /// The container's top-level boxes, in order, as far as they are whole within `file` (a box that runs
    /// past the end, as in a file's first bytes, is cut at the end); nil for a bare codestream.
    static func boxes(_ file: [UInt8]) -> [Box]? {
        guard file.starts(with: containerSignature) else { return nil }
        var boxes: [Box] = []
        var offset = 0
        while offset + 8 <= file.count, boxes.count < 10_000 {
            var size = Int(bigEndian32(file, offset))
            var header = 8
            if size == 1 {
                guard offset + 16 <= file.count else { break }
                let large = UInt64(bigEndian32(file, offset + 8)) << 32 | UInt64(bigEndian32(file, offset + 12))
                guard large <= UInt64(Int.max) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = file.count - offset   // the last box runs to the end of the file
            }
            guard size >= header else { break }
            let type = String(decoding: file[offset + 4..<offset + 8].map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            let (end, overflow) = offset.addingReportingOverflow(size)
            let payloadEnd = overflow ? file.count : min(end, file.count)
            boxes.append(Box(type: type, payload: offset + header..<payloadEnd, isCut: overflow || end > file.count))
            if overflow || end >= file.count { break }
            offset = end
        }
        return boxes
    }

    /// The first bytes of the codestream: the whole file when bare, else the first `jxlc` box's payload or
    /// the first `jxlp` box's after its 4-byte index.
    static func codestreamStart(_ file: [UInt8]) -> ArraySlice<UInt8>? {
        guard let boxes = boxes(file) else { return file.starts(with: codestreamSignature) ? file[...] : nil }
        for box in boxes {
            if box.type == "jxlc" { return file[box.payload] }
            if box.type == "jxlp", box.payload.count > 4 { return file[box.payload.dropFirst(4)] }
        }
        return nil
    }

    /// The picture's size as libjxl hands it back (the codestream's orientation applied) and whether it has
    /// an alpha channel, from the SizeHeader and the ImageMetadata up to the first extra channel; nil when
    /// the bytes do not reach that far or break the format's rules.
    static func header(_ file: [UInt8]) -> ImageHeader? {
        guard let codestream = codestreamStart(file), codestream.starts(with: codestreamSignature) else { return nil }
        var reader = BitReader(codestream.dropFirst(2))
        guard let size = reader.sizeHeader() else { return nil }
        var width = size.width, height = size.height
        let metadata = reader.imageMetadataStart()
        if let orientation = metadata?.orientation, orientation > 4 { swap(&width, &height) }
        // An animation counts as one frame: only the first is decoded (JXLDecoder).
        return ImageHeader(width: width, height: height, hasAlpha: metadata?.hasAlpha ?? false)
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}

/// The codestream's bits, least significant first, as ISO/IEC 18181-1 reads them; every read past the end
/// gives nil.
struct BitReader {
    private let bytes: ArraySlice<UInt8>
    private var position = 0   // in bits from bytes.startIndex

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func bits(_ count: Int) -> UInt64? {
        guard count <= 64, position + count <= bytes.count * 8 else { return nil }
        var value: UInt64 = 0
        for bit in 0..<count {
            let index = position + bit
            let byte = bytes[bytes.startIndex + index / 8]
            value |= UInt64((byte >> (index % 8)) & 1) << bit
        }
        position += count
        return value
    }

    mutating func flag() -> Bool? { bits(1).map { $0 == 1 } }

    /// U32(d0, d1, d2, d3): a 2-bit selector, then that distribution's (offset, bits).
    mutating func u32(_ distributions: [(offset: UInt64, bits: Int)]) -> UInt64? {
        guard let selector = bits(2), let value = bits(distributions[Int(selector)].bits) else { return nil }
        return distributions[Int(selector)].offset + value
    }

    /// SizeHeader: the image's width and height as stored.
    mutating func sizeHeader() -> (width: Int, height: Int)? {
        guard let small = flag() else { return nil }
        let distribution: [(offset: UInt64, bits: Int)] = [(1, 9), (1, 13), (1, 18), (1, 30)]
        guard let height = small ? bits(5).map({ ($0 + 1) * 8 }) : u32(distribution), let ratio = bits(3) else { return nil }
        let width: UInt64
        switch ratio {
        case 0:
            guard let stored = small ? bits(5).map({ ($0 + 1) * 8 }) : u32(distribution) else { return nil }
            width = stored
        default:
            // Table of the SizeHeader ratios: 1, 12/10, 4/3, 3/2, 16/9, 5/4, 2 (heights are at most 2^30).
            let (numerator, denominator): (UInt64, UInt64) = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][Int(ratio) - 1]
            width = height * numerator / denominator
        }
        return (Int(width), Int(height))
    }

    /// ImageMetadata as far as the orientation and the first extra channel's type.
    mutating func imageMetadataStart() -> (orientation: Int, hasAlpha: Bool)? {
        guard let allDefault = flag() else { return nil }
        if allDefault { return (1, false) }
        guard let extraFields = flag() else { return nil }
        var orientation = 1
        if extraFields {
            guard let stored = bits(3), let intrinsic = flag() else { return nil }
            orientation = Int(stored) + 1
            if intrinsic { guard sizeHeader() != nil else { return nil } }
            guard let preview = flag() else { return nil }
            if preview { guard previewHeader() else { return nil } }
            guard let animation = flag() else { return nil }
            if animation {
                guard u32([(100, 0), (1000, 0), (1, 10), (1, 30)]) != nil, u32([(1, 0), (1001, 0), (1, 8), (1, 10)]) != nil,
                      u32([(0, 0), (0, 3), (0, 16), (0, 32)]) != nil, flag() != nil else { return nil }
            }
        }
        guard bitDepth(), flag() != nil,
              let extraChannels = u32([(0, 0), (1, 0), (2, 4), (1, 12)]) else { return nil }
        guard extraChannels > 0 else { return (orientation, false) }
        // The first extra channel: all-default means alpha; otherwise its type, 0 for alpha.
        guard let defaultChannel = flag() else { return nil }
        if defaultChannel { return (orientation, true) }
        guard let type = u32([(0, 0), (1, 0), (2, 4), (18, 6)]) else { return nil }
        return (orientation, type == 0)
    }

    private mutating func previewHeader() -> Bool {
        guard let small = flag() else { return false }
        let dimension: [(offset: UInt64, bits: Int)] = small ? [(16, 0), (32, 0), (1, 5), (33, 9)] : [(1, 6), (65, 8), (321, 10), (1345, 12)]
        guard u32(dimension) != nil, let ratio = bits(3) else { return false }
        return ratio != 0 || u32(dimension) != nil
    }

    private mutating func bitDepth() -> Bool {
        guard let float = flag() else { return false }
        if float { return u32([(32, 0), (16, 0), (24, 0), (1, 6)]) != nil && bits(4) != nil }
        return u32([(8, 0), (10, 0), (12, 0), (1, 6)]) != nil
    }
}
