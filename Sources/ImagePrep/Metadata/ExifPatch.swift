/// What `Exif.patch` should change. Everything left nil or false stays as the source had it.
public struct ExifPatchOptions: Sendable, Equatable {
    /// New IFD0 Orientation, written only if the tag exists (a missing tag already means 1).
    public var orientation: Int?
    /// New ExifIFD PixelXDimension / PixelYDimension, written only if the tags exist.
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// Remove the GPS directory and zero every byte of it.
    public var stripGPS: Bool
    /// Largest acceptable block; the thumbnail is dropped to get under it (65527 for one JPEG APP1).
    public var maxBytes: Int?
    public var thumbnail: ThumbnailChange

    /// What becomes of IFD1's JPEG thumbnail.
    public enum ThumbnailChange: Sendable, Equatable {
        case keep
        case drop
        /// These JPEG bytes instead (a thumbnail turned upright), appended after everything else kept.
        case replace([UInt8])
    }

    public init(orientation: Int? = nil, pixelWidth: Int? = nil, pixelHeight: Int? = nil,
                stripGPS: Bool = false, maxBytes: Int? = nil, thumbnail: ThumbnailChange = .keep) {
        self.orientation = orientation
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.stripGPS = stripGPS
        self.maxBytes = maxBytes
        self.thumbnail = thumbnail
    }
}

/// The patched TIFF block and what a user should be told about it.
public struct ExifPatchResult: Sendable, Equatable {
    public var tiff: [UInt8]
    /// Plain sentences, e.g. "dropped the EXIF thumbnail to keep EXIF within 65527 bytes".
    public var warnings: [String]
}

/// EXIF edited in place in the original TIFF block. Re-serialising EXIF (as libexif does) drops
/// unknown tags and breaks MakerNote offsets, so every edit here keeps all other bytes where they were.
public enum Exif {
    /// The raw IFD0 Orientation value (callers map values outside 1...8 to 1), or nil if absent or unreadable.
    public static func orientation(in tiff: [UInt8]) -> Int? {
        guard let block = try? TIFFBlock(tiff),
              let ifd0 = try? block.directory(at: block.ifd0Offset, "IFD0"),
              let entry = ifd0.entry(0x0112) else { return nil }
        return (try? block.integers(entry))??.first
    }

    /// Whether IFD0 links a next directory (IFD1, the thumbnail's); false when the block is unreadable.
    public static func hasThumbnail(_ tiff: [UInt8]) -> Bool {
        guard let block = try? TIFFBlock(tiff), let ifd0 = try? block.directory(at: block.ifd0Offset, "IFD0"),
              let next = try? block.u32(at: ifd0.nextPointerPosition) else { return false }
        return next != 0
    }

    /// Whether IFD0 links a GPS directory; true also when the block is unreadable, since GPS cannot be ruled out.
    public static func hasGPS(_ tiff: [UInt8]) -> Bool {
        guard let block = try? TIFFBlock(tiff), let ifd0 = try? block.directory(at: block.ifd0Offset, "IFD0")
        else { return true }
        return ifd0.entry(TIFFBlock.gpsPointerTag) != nil
    }

    /// Applies `options` to a TIFF block in place; throws `.corrupt` for structures it cannot trust
    /// and `.doesNotFit` when `maxBytes` cannot be met without dropping more than the thumbnail.
    /// Only IFD0, its next-IFD (IFD1) and the fixed ExifIFD/GPS/Interop pointers are followed, never an
    /// IFD chain, so a directory that points back at itself cannot make this loop.
    public static func patch(_ tiff: [UInt8], options: ExifPatchOptions) throws -> ExifPatchResult {
        var block = try TIFFBlock(tiff)
        var warnings: [String] = []
        let ifd0 = try block.directory(at: block.ifd0Offset, "IFD0")
        // Tags in a directory are unique; a second GPS pointer would survive the strip that unlinks the first.
        for tag in [TIFFBlock.gpsPointerTag, TIFFBlock.exifPointerTag] where ifd0.entries.filter({ $0.tag == tag }).count > 1 {
            throw TIFFBlock.malformed("IFD0 lists tag 0x\(String(tag, radix: 16, uppercase: true)) more than once")
        }

        if let orientation = options.orientation, let entry = ifd0.entry(0x0112) {
            // A stale Orientation would make viewers rotate pixels that are already upright.
            guard try block.setFirstInteger(orientation, of: entry, avoiding: [ifd0.byteRange]) else {
                throw TIFFBlock.malformed("Orientation is not a number that can hold \(orientation)")
            }
        }

        if options.pixelWidth != nil || options.pixelHeight != nil,
           let pointer = ifd0.entry(TIFFBlock.exifPointerTag) {
            let exifIFD = try block.subdirectory(pointer, "ExifIFD")
            for (tag, value, name) in [(0xA002, options.pixelWidth, "width"), (0xA003, options.pixelHeight, "height")] {
                guard let value, let entry = exifIFD.entry(tag) else { continue }
                if try !block.setFirstInteger(value, of: entry, avoiding: [ifd0.byteRange, exifIFD.byteRange]) {
                    warnings.append("left the EXIF image \(name) unchanged because \(value) does not fit its field")
                }
            }
        }

        if options.stripGPS, let pointer = ifd0.entry(TIFFBlock.gpsPointerTag) {
            try stripGPS(&block, ifd0: ifd0, pointer: pointer)
        }

        switch options.thumbnail {
        case .keep: break
        case .drop: _ = try dropThumbnail(&block)
        case .replace(let thumbnail):
            if try !replaceThumbnail(&block, with: thumbnail), try dropThumbnail(&block) {
                warnings.append("dropped the EXIF thumbnail: its directory has no room for an upright one")
            }
        }

        // Bytes past every structure (padding, a maker's unreferenced preview: 178 KB on a Xiaomi HEIC)
        // would cost every output format the same bytes for nothing a reader can reach.
        if let end = try? endOfReferencedData(block), end < block.bytes.count {
            block.bytes.removeSubrange(end...)
        }

        if let maxBytes = options.maxBytes, block.bytes.count > maxBytes {
            if try dropThumbnail(&block) {
                warnings.append("dropped the EXIF thumbnail to keep EXIF within \(maxBytes) bytes")
            }
            guard block.bytes.count <= maxBytes else {
                throw ImagePrepError(.doesNotFit,
                    "EXIF needs \(block.bytes.count) bytes without its thumbnail, more than the \(maxBytes) allowed")
            }
        }
        return ExifPatchResult(tiff: block.bytes, warnings: warnings)
    }

    /// Unlinks the GPS directory from IFD0 and zeroes it together with every value it points to,
    /// so no coordinate survives anywhere in the bytes.
    private static func stripGPS(_ block: inout TIFFBlock, ifd0: TIFFDirectory, pointer: TIFFEntry) throws {
        let gps = try block.subdirectory(pointer, "GPS IFD")
        var doomed = [gps.byteRange]
        for entry in gps.entries {
            // An unknown type hides where its value is, and that value could be a coordinate.
            guard let range = try block.valueRange(entry) else {
                throw TIFFBlock.malformed("GPS tag 0x\(String(entry.tag, radix: 16)) has unknown type \(entry.type)")
            }
            doomed.append(range)
        }
        // Zeroing must not damage what stays, which a crafted pointer could otherwise arrange.
        guard doomed.allSatisfy({ !$0.overlaps(ifd0.byteRange) && !$0.overlaps(0..<8) }) else {
            throw TIFFBlock.malformed("the GPS IFD overlaps IFD0 or the TIFF header")
        }

        // Remove the entry: shift later entries and the next-IFD pointer down by 12, zero the freed tail.
        let start = pointer.position, end = ifd0.byteRange.upperBound
        block.bytes.replaceSubrange(start..<end, with: block.bytes[(start + 12)..<end] + repeatElement(0, count: 12))
        block.setU16(ifd0.entries.count - 1, at: ifd0.offset)
        for range in doomed { block.bytes.replaceSubrange(range, with: repeatElement(0, count: range.count)) }
    }

    /// Unlinks IFD1 (the thumbnail) and truncates the block after the last structure still referenced.
    /// Returns whether there was a thumbnail. Truncation only ever removes bytes nothing kept points to;
    /// when the thumbnail sits before other data the block cannot shrink and the caller's size check fails.
    private static func dropThumbnail(_ block: inout TIFFBlock) throws -> Bool {
        let ifd0 = try block.directory(at: block.ifd0Offset, "IFD0")
        let hadThumbnail = try block.u32(at: ifd0.nextPointerPosition) != 0
        block.setU32(0, at: ifd0.nextPointerPosition)
        if let end = try endOfKeptData(block, ifd0: ifd0), end < block.bytes.count {
            block.bytes.removeSubrange(end...)
        }
        return hadThumbnail
    }

    /// Points IFD1 at `thumbnail`, appended after everything else the block keeps. The old thumbnail's bytes
    /// are trimmed with the rest when nothing kept lies after them. Returns false, leaving IFD1 for the
    /// caller to drop, when its offset or length fields cannot hold the new values.
    private static func replaceThumbnail(_ block: inout TIFFBlock, with thumbnail: [UInt8]) throws -> Bool {
        let ifd0 = try block.directory(at: block.ifd0Offset, "IFD0")
        let ifd1Offset = try block.u32(at: ifd0.nextPointerPosition)
        guard ifd1Offset != 0 else { return true }
        let ifd1 = try block.directory(at: ifd1Offset, "IFD1")
        let structures = [ifd0.byteRange, ifd1.byteRange]
        guard let startEntry = ifd1.entry(0x0201), let lengthEntry = ifd1.entry(0x0202),
              try block.setFirstInteger(0, of: lengthEntry, avoiding: structures) else { return false }
        // With its length at 0 the old thumbnail no longer counts as referenced.
        if let end = try endOfReferencedData(block), end < block.bytes.count {
            block.bytes.removeSubrange(end...)
        }
        if block.bytes.count % 2 == 1 { block.bytes.append(0) }   // TIFF values start on a word boundary
        let start = block.bytes.count
        block.bytes += thumbnail
        return try block.setFirstInteger(start, of: startEntry, avoiding: structures)
            && block.setFirstInteger(thumbnail.count, of: lengthEntry, avoiding: structures)
    }

    /// A tail past every structure this long is worth rewriting a file that could otherwise leave as it
    /// came (`unreferencedTail`); shorter ones (word alignment, a few stray bytes) are left.
    static let tailWorthTrimming = 1024

    /// Bytes past every structure `patch` would cut (padding, an unreferenced preview); 0 when there are
    /// none or the block points further than this reader follows.
    public static func unreferencedTail(_ tiff: [UInt8]) -> Int {
        guard let block = try? TIFFBlock(tiff), let end = try? endOfReferencedData(block) else { return 0 }
        return max(tiff.count - end, 0)
    }

    /// The end of the last byte any directory (IFD1 and its JPEG thumbnail included) uses, or nil when
    /// something could point further than this reader follows: an IFD after IFD1, SubIFDs, strips, a
    /// value of unknown type. Nothing before the end moves, so MakerNote offsets stay right.
    static func endOfReferencedData(_ block: TIFFBlock) throws -> Int? {
        let ifd0 = try block.directory(at: block.ifd0Offset, "IFD0")
        guard var end = try endOfKeptData(block, ifd0: ifd0) else { return nil }
        let ifd1Offset = try block.u32(at: ifd0.nextPointerPosition)
        var directories = [ifd0]
        if ifd1Offset != 0 {
            let ifd1 = try block.directory(at: ifd1Offset, "IFD1")
            guard try block.u32(at: ifd1.nextPointerPosition) == 0 else { return nil }
            directories.append(ifd1)
            end = max(end, ifd1.byteRange.upperBound)
            for entry in ifd1.entries {
                guard let range = try block.valueRange(entry) else { return nil }
                end = max(end, range.upperBound)
            }
        }
        for directory in directories {
            // Offsets to data the entries' own values do not cover.
            if [0x014A, 0x0111, 0x0144].contains(where: { directory.entry($0) != nil }) { return nil }   // SubIFDs, strips, tiles
            if let offset = directory.entry(0x0201), let length = directory.entry(0x0202) {
                guard let start = try block.integers(offset)?.first, let count = try block.integers(length)?.first,
                      start + count <= block.bytes.count else { return nil }
                end = max(end, start + count)
            }
        }
        return end
    }

    /// The end of the last byte IFD0, ExifIFD, InteropIFD or the GPS IFD use, or nil if some value's
    /// size is unknown. A MakerNote counts as its declared bytes; makers keep their data inside them.
    private static func endOfKeptData(_ block: TIFFBlock, ifd0: TIFFDirectory) throws -> Int? {
        var directories = [ifd0]
        if let pointer = ifd0.entry(TIFFBlock.exifPointerTag) {
            let exifIFD = try block.subdirectory(pointer, "ExifIFD")
            directories.append(exifIFD)
            if let interop = exifIFD.entry(TIFFBlock.interopPointerTag) {
                directories.append(try block.subdirectory(interop, "InteropIFD"))
            }
        }
        if let pointer = ifd0.entry(TIFFBlock.gpsPointerTag) {
            directories.append(try block.subdirectory(pointer, "GPS IFD"))
        }
        var end = 8
        for directory in directories {
            end = max(end, directory.byteRange.upperBound)
            for entry in directory.entries {
                guard let range = try block.valueRange(entry) else { return nil }
                end = max(end, range.upperBound)
            }
        }
        return end
    }
}
