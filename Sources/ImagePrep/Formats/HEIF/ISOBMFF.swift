/// A small reader for the ISO base media file format boxes that describe a HEIF/AVIF still image.
/// Every read is bounds-checked and every loop advances by at least one box header, so truncated
/// or garbage input yields fewer results, never a crash or a hang.
public enum ISOBMFF {
    /// One box: its four-character type and where its header and payload lie in the file.
    public struct Box: Sendable, Equatable {
        /// The four-character type, with bytes outside printable ASCII shown as "?".
        public var type: String
        /// File offset of the size field.
        public var start: Int
        /// 8, 16 with a 64-bit largesize, 16 more for a `uuid` box.
        public var headerSize: Int
        /// File offset just past the box.
        public var end: Int

        /// The bytes after the header (a FullBox's version and flags are the first four of them).
        public var payload: Range<Int> { start + headerSize ..< end }
        /// The whole box's length in bytes, header included.
        public var size: Int { end - start }
    }

    /// The `ftyp` box: which specifications the file claims to follow.
    public struct FileType: Sendable, Equatable {
        public var majorBrand: String
        public var minorVersion: UInt32
        public var compatibleBrands: [String]
    }

    /// One `infe` entry of the item information box.
    public struct Item: Sendable, Equatable {
        public var id: UInt32
        public var type: String
        public var name: String
    }

    /// One entry of the `iref` box: item `from` refers to the items `to`, for example `auxl` or `cdsc`.
    public struct Reference: Sendable, Equatable {
        public var type: String
        public var from: UInt32
        public var to: [UInt32]

        public init(type: String, from: UInt32, to: [UInt32]) {
            self.type = type
            self.from = from
            self.to = to
        }
    }

    /// The `iref` box's entries and its version (0: 16-bit item ids, 1: 32-bit item ids).
    public struct References: Sendable, Equatable {
        public var version: UInt8
        public var entries: [Reference]
    }

    /// The boxes laid end to end in `range`; stops at the first one that does not fit.
    public static func boxes(in bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        var cursor = ByteCursor(bytes, range)
        var found: [Box] = []
        while cursor.remaining >= 8 {
            let start = cursor.offset
            guard let size32 = cursor.u32(), let type = cursor.fourCC() else { break }
            var size = Int(size32)
            if size32 == 1 {  // 64-bit largesize follows the type
                guard let large = cursor.u64(), large <= UInt64(Int.max) else { break }
                size = Int(large)
            } else if size32 == 0 {  // extends to the end of the enclosing range
                size = cursor.end - start
            }
            if type == "uuid", cursor.skip(16) == nil { break }
            let headerSize = cursor.offset - start
            guard size >= headerSize, size <= cursor.end - start else { break }
            found.append(Box(type: type, start: start, headerSize: headerSize, end: start + size))
            cursor.offset = start + size
        }
        return found
    }

    /// The top-level boxes of a file.
    public static func topLevelBoxes(_ bytes: [UInt8]) -> [Box] {
        boxes(in: bytes, 0..<bytes.count)
    }

    /// The child boxes of a container; `meta` is a FullBox, so its children start 4 bytes later.
    public static func children(of box: Box, in bytes: [UInt8]) -> [Box] {
        let skip = box.type == "meta" ? 4 : 0
        guard box.payload.count >= skip else { return [] }
        return boxes(in: bytes, box.payload.lowerBound + skip ..< box.end)
    }

    /// The first box at a path of types from the top level, e.g. `["meta", "iprp", "ipco"]`.
    public static func find(_ path: [String], in bytes: [UInt8]) -> Box? {
        var level = topLevelBoxes(bytes)
        var match: Box?
        for type in path {
            guard let next = level.first(where: { $0.type == type }) else { return nil }
            match = next
            level = children(of: next, in: bytes)
        }
        return match
    }

    /// Brands from an `ftyp` box.
    public static func fileType(_ box: Box, in bytes: [UInt8]) -> FileType? {
        var cursor = ByteCursor(bytes, box.payload)
        guard let major = cursor.fourCC(), let minor = cursor.u32() else { return nil }
        var compatible: [String] = []
        while let brand = cursor.fourCC() { compatible.append(brand) }
        return FileType(majorBrand: major, minorVersion: minor, compatibleBrands: compatible)
    }

    /// The primary item id from a `pitm` box (16-bit in version 0, 32-bit otherwise).
    public static func primaryItemID(_ box: Box, in bytes: [UInt8]) -> UInt32? {
        var cursor = ByteCursor(bytes, box.payload)
        guard let version = cursor.fullBoxVersion() else { return nil }
        return cursor.itemID(wide: version != 0)
    }

    /// The items of an `iinf` box; `infe` entries of versions other than 2 and 3 carry no item type and are skipped.
    public static func items(_ iinf: Box, in bytes: [UInt8]) -> [Item] {
        var cursor = ByteCursor(bytes, iinf.payload)
        guard let version = cursor.fullBoxVersion(), cursor.itemID(wide: version != 0) != nil else { return [] }
        return boxes(in: bytes, cursor.offset..<iinf.end).filter { $0.type == "infe" }.compactMap { infe in
            var entry = ByteCursor(bytes, infe.payload)
            guard let version = entry.fullBoxVersion(), version == 2 || version == 3,
                  let id = entry.itemID(wide: version == 3), entry.u16() != nil,  // item_protection_index
                  let type = entry.fourCC()
            else { return nil }
            return Item(id: id, type: type, name: entry.cString() ?? "")
        }
    }

    /// The entries of an `iref` box, or nil when its version is unknown; malformed entries are left out.
    public static func references(_ iref: Box, in bytes: [UInt8]) -> References? {
        referenceEntries(iref, in: bytes).map { References(version: $0.version, entries: $0.entries.compactMap(\.reference)) }
    }

    /// Each `iref` entry with the box it occupies (nil reference when malformed).
    /// An entry is laid out as a box (size, type) whose payload is from-id, count, to-ids.
    static func referenceEntries(_ iref: Box, in bytes: [UInt8])
        -> (version: UInt8, entries: [(box: Box, reference: Reference?)])?
    {
        var cursor = ByteCursor(bytes, iref.payload)
        guard let version = cursor.fullBoxVersion(), version <= 1 else { return nil }
        let entries = boxes(in: bytes, cursor.offset..<iref.end).map { entry -> (box: Box, reference: Reference?) in
            var fields = ByteCursor(bytes, entry.payload)
            guard let from = fields.itemID(wide: version == 1), let count = fields.u16() else { return (entry, nil) }
            var to: [UInt32] = []
            for _ in 0..<count {
                guard let id = fields.itemID(wide: version == 1) else { return (entry, nil) }
                to.append(id)
            }
            return (entry, Reference(type: entry.type, from: from, to: to))
        }
        return (version, entries)
    }

    /// For each item id, the 1-based indices into `ipco` of the properties `ipma` associates with it.
    public static func propertyAssociations(_ ipma: Box, in bytes: [UInt8]) -> [UInt32: [Int]] {
        var cursor = ByteCursor(bytes, ipma.payload)
        guard let version = cursor.u8(), cursor.skip(2) != nil, let flags = cursor.u8(),
              let count = cursor.u32()
        else { return [:] }
        var associations: [UInt32: [Int]] = [:]
        for _ in 0..<count {
            guard let item = cursor.itemID(wide: version >= 1), let n = cursor.u8() else { break }
            for _ in 0..<n {
                // The top bit marks the property essential; the rest is the index (7 or 15 bits).
                if flags & 1 == 1 {
                    guard let value = cursor.u16() else { return associations }
                    associations[item, default: []].append(Int(value & 0x7FFF))
                } else {
                    guard let value = cursor.u8() else { return associations }
                    associations[item, default: []].append(Int(value & 0x7F))
                }
            }
        }
        return associations
    }

    /// The auxiliary type URN of an `auxC` property box.
    public static func auxiliaryType(_ auxC: Box, in bytes: [UInt8]) -> String? {
        var cursor = ByteCursor(bytes, auxC.payload)
        guard cursor.fullBoxVersion() != nil else { return nil }
        return cursor.cString()
    }
}

/// What `imgprep info` shows about a HEIF/AVIF file's structure.
public struct HeifStructure: Sendable, Equatable {
    public var fileType: ISOBMFF.FileType
    public var primaryItemID: UInt32?
    public var items: [ISOBMFF.Item]
    public var references: [ISOBMFF.Reference]
    /// An HDR gain map: a `tmap` tone-map item, or an auxiliary image whose `auxC` type names an HDR gain map.
    public var hasGainMap: Bool
    /// How many items are auxiliary images (`auxl` references: alpha, depth, mattes, gain maps).
    public var auxiliaryImageCount: Int

    /// Reads the structure; nil when the bytes do not start with an `ftyp` box.
    public init?(_ bytes: [UInt8]) {
        guard let ftypBox = ISOBMFF.topLevelBoxes(bytes).first, ftypBox.type == "ftyp",
              let fileType = ISOBMFF.fileType(ftypBox, in: bytes)
        else { return nil }
        self.fileType = fileType
        let meta = ISOBMFF.find(["meta"], in: bytes).map { ISOBMFF.children(of: $0, in: bytes) } ?? []
        let child = { (type: String) in meta.first { $0.type == type } }
        primaryItemID = child("pitm").flatMap { ISOBMFF.primaryItemID($0, in: bytes) }
        items = child("iinf").map { ISOBMFF.items($0, in: bytes) } ?? []
        references = child("iref").flatMap { ISOBMFF.references($0, in: bytes) }?.entries ?? []

        let auxiliaryIDs = Set(references.filter { $0.type == "auxl" }.map(\.from))
        auxiliaryImageCount = auxiliaryIDs.count
        hasGainMap = items.contains { $0.type == "tmap" }
            || Self.auxiliaryTypes(of: auxiliaryIDs, iprp: child("iprp"), in: bytes).contains { $0.contains("hdrgainmap") }
    }

    /// Lines for `imgprep info`: items and references counted by type, auxiliary images, gain map.
    public var summaryLines: [String] {
        var lines: [String] = []
        if !items.isEmpty {
            lines.append("items: \(Self.tally(items.map(\.type)))" + (primaryItemID.map { ", primary item \($0)" } ?? ""))
        }
        if !references.isEmpty { lines.append("item references: \(Self.tally(references.map(\.type)))") }
        if auxiliaryImageCount > 0 {
            lines.append("\(auxiliaryImageCount) auxiliary image\(auxiliaryImageCount == 1 ? "" : "s") in the file")
        }
        if hasGainMap { lines.append("HDR gain map present") }
        return lines
    }

    /// "3 hvc1, 1 Exif": how often each type occurs, in order of first appearance.
    private static func tally(_ types: [String]) -> String {
        var counts: [(type: String, count: Int)] = []
        for type in types.map({ String($0.reversed().drop { $0 == " " }.reversed()) }) {  // "uri " reads as "uri"
            if let index = counts.firstIndex(where: { $0.type == type }) {
                counts[index].count += 1
            } else {
                counts.append((type, 1))
            }
        }
        return counts.map { "\($0.count) \($0.type)" }.joined(separator: ", ")
    }

    /// The `auxC` URNs associated with the given items.
    private static func auxiliaryTypes(of ids: Set<UInt32>, iprp: ISOBMFF.Box?, in bytes: [UInt8]) -> [String] {
        guard !ids.isEmpty, let iprp else { return [] }
        let boxes = ISOBMFF.children(of: iprp, in: bytes)
        guard let ipco = boxes.first(where: { $0.type == "ipco" }),
              let ipma = boxes.first(where: { $0.type == "ipma" })
        else { return [] }
        let properties = ISOBMFF.children(of: ipco, in: bytes)
        return ISOBMFF.propertyAssociations(ipma, in: bytes)
            .filter { ids.contains($0.key) }
            .flatMap(\.value)
            .compactMap { index in
                guard index >= 1, index <= properties.count, properties[index - 1].type == "auxC" else { return nil }
                return ISOBMFF.auxiliaryType(properties[index - 1], in: bytes)
            }
    }
}

/// ISO-BMFF's own fields.
extension ByteCursor {
    /// An item id, 16-bit unless `wide`.
    mutating func itemID(wide: Bool) -> UInt32? { unsigned(wide ? 4 : 2).map { UInt32($0) } }

    /// Reads a FullBox's version and skips its 24 flag bits.
    mutating func fullBoxVersion() -> UInt8? {
        guard let version = u8(), skip(3) != nil else { return nil }
        return version
    }
}
