/// A TIFF block (the body of an EXIF segment) with bounds-checked reads and in-place writes.
/// Every problem surfaces as `ImagePrepError(.corrupt, "malformed EXIF: ...")`, so callers can drop
/// the EXIF and carry on; nothing here traps on hostile input.
struct TIFFBlock {
    var bytes: [UInt8]
    let bigEndian: Bool

    /// Tags that hold the offset of another directory.
    static let exifPointerTag = 0x8769
    static let gpsPointerTag = 0x8825
    static let interopPointerTag = 0xA005

    init(_ bytes: [UInt8]) throws {
        guard TIFFBlock.startsWithHeader(bytes[...]) else { throw TIFFBlock.malformed("no TIFF header") }
        self.bytes = bytes
        bigEndian = bytes[0] == 0x4D
    }

    /// Whether the bytes begin with "II*\0" or "MM\0*" followed by room for the IFD0 offset.
    static func startsWithHeader(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 8 else { return false }
        let s = bytes.startIndex
        return (bytes[s], bytes[s + 1], bytes[s + 2], bytes[s + 3]) == (0x49, 0x49, 0x2A, 0x00)
            || (bytes[s], bytes[s + 1], bytes[s + 2], bytes[s + 3]) == (0x4D, 0x4D, 0x00, 0x2A)
    }

    static func malformed(_ what: String) -> ImagePrepError {
        ImagePrepError(.corrupt, "malformed EXIF: \(what)")
    }

    // MARK: Integers

    func u16(at offset: Int) throws -> Int {
        guard offset >= 0, offset + 2 <= bytes.count else { throw TIFFBlock.malformed("offset \(offset) is outside the block") }
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(at offset: Int) throws -> Int {
        let a = try u16(at: offset), b = try u16(at: offset + 2)
        return bigEndian ? a << 16 | b : b << 16 | a
    }

    /// Callers check bounds first (every write targets a field that was just read).
    mutating func setU16(_ value: Int, at offset: Int) {
        let (hi, lo) = (UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        (bytes[offset], bytes[offset + 1]) = bigEndian ? (hi, lo) : (lo, hi)
    }

    mutating func setU32(_ value: Int, at offset: Int) {
        let (hi, lo) = (value >> 16 & 0xFFFF, value & 0xFFFF)
        setU16(bigEndian ? hi : lo, at: offset)
        setU16(bigEndian ? lo : hi, at: offset + 2)
    }

    // MARK: Directories

    var ifd0Offset: Int { get throws { try u32(at: 4) } }

    /// Reads the directory at `offset`. The count is 16-bit and every entry must lie inside the block,
    /// so a garbage count fails here instead of driving a long loop.
    func directory(at offset: Int, _ name: String) throws -> TIFFDirectory {
        guard offset >= 8 else { throw TIFFBlock.malformed("\(name) points into the TIFF header") }
        let count = try u16(at: offset)
        let end = offset + 2 + 12 * count + 4
        guard end <= bytes.count else { throw TIFFBlock.malformed("\(name) runs past the end of the block") }
        var entries: [TIFFEntry] = []
        for index in 0..<count {
            let position = offset + 2 + 12 * index
            entries.append(TIFFEntry(
                tag: try u16(at: position), type: try u16(at: position + 2),
                count: try u32(at: position + 4), position: position))
        }
        return TIFFDirectory(name: name, offset: offset, entries: entries)
    }

    /// The directory a pointer tag (ExifIFD, GPS, Interop) refers to.
    func subdirectory(_ entry: TIFFEntry, _ name: String) throws -> TIFFDirectory {
        // LONG or IFD type, one value, stored inline.
        guard entry.type == 4 || entry.type == 13, entry.count == 1 else {
            throw TIFFBlock.malformed("the \(name) pointer has the wrong type")
        }
        return try directory(at: u32(at: entry.position + 8), name)
    }

    /// Where an entry's value lives: inline in the entry when it fits in 4 bytes, else at an offset.
    /// nil when the type is one TIFF does not define, so its size is unknown.
    func valueRange(_ entry: TIFFEntry) throws -> Range<Int>? {
        guard let size = entry.valueByteCount else { return nil }
        let start = size <= 4 ? entry.position + 8 : try u32(at: entry.position + 8)
        guard start + size <= bytes.count else { throw TIFFBlock.malformed("tag 0x\(String(entry.tag, radix: 16, uppercase: true)) points past the end of the block") }
        return start..<(start + size)
    }

    /// The values of a BYTE, SHORT or LONG entry (none when its count is 0); nil for other types.
    func integers(_ entry: TIFFEntry) throws -> [Int]? {
        let sizes = [1: 1, 3: 2, 4: 4]
        guard let size = sizes[entry.type], let range = try valueRange(entry) else { return nil }
        return try stride(from: range.lowerBound, to: range.upperBound, by: size).map { offset in
            switch entry.type {
            case 1: Int(bytes[offset])
            case 3: try u16(at: offset)
            default: try u32(at: offset)
            }
        }
    }

    /// Overwrites the first value of a BYTE, SHORT or LONG entry, keeping its type.
    /// Returns false when the type is not one of those or the value does not fit it. Throws when an
    /// out-of-line value lies on the TIFF header or on one of the `structures` (directory tables):
    /// writing it would break the block instead of changing one tag.
    mutating func setFirstInteger(_ value: Int, of entry: TIFFEntry, avoiding structures: [Range<Int>]) throws -> Bool {
        guard entry.count >= 1, let range = try valueRange(entry) else { return false }
        if range.count > 4, ([0..<8] + structures).contains(where: { $0.overlaps(range) }) {
            throw TIFFBlock.malformed("the value of tag 0x\(String(entry.tag, radix: 16, uppercase: true)) lies on the block's structure")
        }
        switch entry.type {
        case 1 where (0...0xFF).contains(value): bytes[range.lowerBound] = UInt8(value)
        case 3 where (0...0xFFFF).contains(value): setU16(value, at: range.lowerBound)
        case 4 where (0...0xFFFF_FFFF).contains(value): setU32(value, at: range.lowerBound)
        default: return false
        }
        return true
    }
}

/// One image file directory: a 16-bit count, 12-byte entries, then the 4-byte offset of the next IFD.
struct TIFFDirectory {
    let name: String
    let offset: Int
    let entries: [TIFFEntry]

    var nextPointerPosition: Int { offset + 2 + 12 * entries.count }
    /// The count, the entries and the next-IFD pointer (not the out-of-line values).
    var byteRange: Range<Int> { offset..<(nextPointerPosition + 4) }

    func entry(_ tag: Int) -> TIFFEntry? { entries.first { $0.tag == tag } }
}

struct TIFFEntry {
    let tag: Int
    let type: Int
    let count: Int
    /// Offset of the 12-byte entry itself.
    let position: Int

    /// Size of the value in bytes, nil for types TIFF 6 / EXIF do not define.
    var valueByteCount: Int? {
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
        return sizes[type].map { $0 * count }
    }
}
