import CHeif

/// A HEIC grid decoded to its coded Y'CbCr 4:2:0, tile by tile. libheif 1.15 turns every colour picture into
/// RGB before handing it out (a grid tile by tile, with a scalar loop), and an encoder that stores Y'CbCr then
/// turns it back. Here each tile's HEVC data (found through `iloc`, with its `hvcC` parameter sets) goes to
/// libde265, the decoder libheif uses, and its planes are copied into planes of the whole picture; `irot` is
/// applied to the planes. Tiles are decoded in parallel when the picture has threads to spare.
///
/// Only the plain case is taken, checked box by box: a grid of `hvc1` tiles of one even size that tile its
/// `ispe` exactly, as its grid descriptor says too (libheif sizes and lays out the picture by the descriptor),
/// stored in the file itself, with no property on the grid or its tiles but the size, colour,
/// depth, codec configuration and rotation. Anything else (mirrors, clean apertures, alpha, other tile layouts)
/// is nil and the caller decodes through libheif's RGB as before.
enum HeifGridPlanes {
    struct Tile: Sendable {
        /// The parameter sets, each preceded by a 4-byte length, as libde265 takes them.
        let headers: [UInt8]
        let lengthSize: Int
        let data: Range<Int>
    }

    struct Plan: Sendable {
        let tiles: [Tile]
        let columns: Int
        let tileSize: (width: Int, height: Int)
        /// The grid's size as stored (before `irot`).
        let size: (width: Int, height: Int)
        let turn: ExifOrientation
    }

    /// The properties a grid or tile may have for this path; any other could change what the picture shows.
    private static let gridProperties: Set<String> = ["ispe", "colr", "pixi", "irot"]
    private static let tileProperties: Set<String> = ["ispe", "colr", "pixi", "hvcC"]

    static func plan(_ file: [UInt8]) -> Plan? {
        guard let meta = ISOBMFF.find(["meta"], in: file) else { return nil }
        let boxes = ISOBMFF.children(of: meta, in: file)
        func child(_ type: String) -> ISOBMFF.Box? {
            let found = boxes.filter { $0.type == type }
            return found.count == 1 ? found[0] : nil
        }
        guard let pitm = child("pitm"), let primary = ISOBMFF.primaryItemID(pitm, in: file),
              let iinf = child("iinf"), let iref = child("iref"), let iprp = child("iprp"), let iloc = child("iloc"),
              let references = ISOBMFF.references(iref, in: file)
        else { return nil }
        let types = itemTypes(iinf, in: file)
        guard types[primary] == "grid" else { return nil }
        let gridReferences = references.entries.filter { $0.type == "dimg" && $0.from == primary }
        guard gridReferences.count == 1, case let ids = gridReferences[0].to, !ids.isEmpty, ids.count <= 4096,
              Set(ids).count == ids.count, ids.allSatisfy({ types[$0] == "hvc1" })
        else { return nil }
        let idat = boxes.filter { $0.type == "idat" }
        let locations = itemLocations(iloc, in: file, idat: idat.count == 1 ? idat[0].payload : nil)

        let iprpBoxes = ISOBMFF.children(of: iprp, in: file)
        guard let ipco = iprpBoxes.first(where: { $0.type == "ipco" }), let ipma = iprpBoxes.first(where: { $0.type == "ipma" })
        else { return nil }
        let properties = ISOBMFF.children(of: ipco, in: file)
        let associations = ISOBMFF.propertyAssociations(ipma, in: file)
        func propertyBoxes(_ item: UInt32, allowed: Set<String>) -> [String: ISOBMFF.Box]? {
            var found: [String: ISOBMFF.Box] = [:]
            for index in associations[item] ?? [] {
                guard index >= 1, index <= properties.count else { return nil }
                let box = properties[index - 1]
                guard allowed.contains(box.type), found[box.type] == nil || box.type == "colr" else { return nil }
                found[box.type] = found[box.type] ?? box
            }
            return found
        }
        guard let grid = propertyBoxes(primary, allowed: gridProperties), let size = grid["ispe"].flatMap({ extent($0, in: file) })
        else { return nil }
        var tileSize: (width: Int, height: Int)?
        var tiles: [Tile] = []
        for id in ids {
            guard let tileBoxes = propertyBoxes(id, allowed: tileProperties), let data = locations[id],
                  let configuration = tileBoxes["hvcC"].flatMap({ parameterSets($0, in: file) }),
                  let extent = tileBoxes["ispe"].flatMap({ extent($0, in: file) }) else { return nil }
            if let tileSize, tileSize != extent { return nil }
            tileSize = extent
            tiles.append(Tile(headers: configuration.headers, lengthSize: configuration.lengthSize, data: data))
        }
        guard let tileSize, tileSize.width % 2 == 0, tileSize.height % 2 == 0 else { return nil }
        // The tiles must cover the grid with no whole row or column to spare, as the grid's own layout says they do.
        let columns = (size.width + tileSize.width - 1) / tileSize.width
        let rows = (size.height + tileSize.height - 1) / tileSize.height
        guard columns * rows == tiles.count else { return nil }
        // libheif lays the tiles out and sizes the picture by the grid's own descriptor: it must say exactly
        // what `ispe` and the tiles say, or libheif decodes (or refuses) the file its own way.
        guard let descriptor = locations[primary].flatMap({ GridDescriptor(file[$0]) }),
              descriptor.columns == columns, descriptor.rows == rows, descriptor.width == size.width, descriptor.height == size.height
        else { return nil }
        var turn = ExifOrientation.up
        if let irot = grid["irot"] {
            guard irot.payload.count >= 1 else { return nil }
            // irot turns anticlockwise by 90° per step.
            turn = [.up, .left, .down, .right][Int(file[irot.payload.lowerBound] & 3)]
            // An odd side cannot be turned plane by plane (see YCbCr420Image.oriented).
            if turn != .up, size.width % 2 != 0 || size.height % 2 != 0 { return nil }
        }
        return Plan(tiles: tiles, columns: columns, tileSize: tileSize, size: size, turn: turn)
    }

    /// Decodes every tile and assembles the planes; nil when a tile is not 8-bit Y'CbCr 4:2:0 of the planned size,
    /// or when the grid is not `upright` once turned (the size libheif reports, already checked against the pixel cap).
    /// The layout is the item's nclx (the grid's, else its tiles'), else the bitstream's own, as libheif reads it.
    static func decode(_ file: [UInt8], plan: Plan, upright: (width: Int, height: Int), itemColour: NCLXColor?,
                       threads: Int) throws -> YCbCr420Image? {
        let (width, height) = plan.size
        guard (plan.turn.swapsDimensions ? (height, width) : (width, height)) == upright else { return nil }
        try LibHeif.load()   // libde265 is libheif's; opening libheif first keeps one copy of it in the process
        let storage = PlaneStorage(count: YCbCr420Image.packedCount(width: width, height: height))
        let chromaWidth = (width + 1) / 2, lumaCount = width * height, chromaCount = chromaWidth * ((height + 1) / 2)
        let destination = [(storage.pointer, width, 1), (storage.pointer + lumaCount, chromaWidth, 2),
                           (storage.pointer + lumaCount + chromaCount, chromaWidth, 2)].map { (SharedPointer($0.0), $0.1, $0.2) }

        /// Decodes tile `index` into its place; its bitstream's matrix and range, nil when it is not as planned.
        @Sendable func place(_ index: Int) throws -> (matrix: Int, fullRange: Bool)? {
            let tile = plan.tiles[index]
            var picture = imgprep_hevc_picture()
            defer { imgprep_hevc_release(&picture) }
            var message = [CChar](repeating: 0, count: 256)
            let status = tile.headers.withUnsafeBufferPointer { headers in
                file.withUnsafeBufferPointer { bytes in
                    // The range lies inside the file (itemLocations checked it).
                    imgprep_hevc_decode(headers.baseAddress, headers.count, bytes.baseAddress! + tile.data.lowerBound, tile.data.count,
                                        Int32(tile.lengthSize), &picture, &message, message.count)
                }
            }
            guard status == 0 else {
                let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw ImagePrepError.library("libde265", "cannot decode grid tile \(index + 1) of \(plan.tiles.count): \(reason)")
            }
            let planes = [picture.planes.0, picture.planes.1, picture.planes.2]
            let strides = [picture.strides.0, picture.strides.1, picture.strides.2]
            let sizes = [(picture.widths.0, picture.heights.0), (picture.widths.1, picture.heights.1), (picture.widths.2, picture.heights.2)]
            let depths = [picture.depths.0, picture.depths.1, picture.depths.2]
            guard picture.chroma == 1, depths.allSatisfy({ $0 == 8 }) else { return nil }
            let (tileX, tileY) = (index % plan.columns * plan.tileSize.width, index / plan.columns * plan.tileSize.height)
            for channel in 0..<3 {
                let (base, stride, factor) = destination[channel]
                guard let source = planes[channel], Int(sizes[channel].0) == plan.tileSize.width / factor,
                      Int(sizes[channel].1) == plan.tileSize.height / factor, Int(strides[channel]) >= plan.tileSize.width / factor
                else { return nil }
                // Tiles on the right and bottom edges overhang the grid: their excess is cut off.
                let x = tileX / factor, y = tileY / factor
                let columns = min(plan.tileSize.width / factor, (width + factor - 1) / factor - x)
                let rows = min(plan.tileSize.height / factor, (height + factor - 1) / factor - y)
                for row in 0..<rows {
                    (base.pointer + (y + row) * stride + x).update(from: source + row * Int(strides[channel]), count: columns)
                }
            }
            return (Int(picture.matrix), picture.full_range != 0)
        }

        // Bands of tiles, each on its own thread into its own part of the planes; every outcome slot is
        // written by one thread and read once all have finished.
        let outcomes = UnsafeMutableBufferPointer<Result<(matrix: Int, fullRange: Bool)?, any Error>>.allocate(capacity: plan.tiles.count)
        outcomes.initialize(repeating: .success(nil))
        defer {
            outcomes.deinitialize()
            outcomes.deallocate()
        }
        let slots = SharedPointer(outcomes.baseAddress!)   // plan.tiles is never empty
        inBands(of: plan.tiles.count, threads: threads) { band in
            for index in band { slots.pointer[index] = Result { try place(index) } }
        }
        var coded: [(matrix: Int, fullRange: Bool)] = []
        for outcome in outcomes {
            guard let tile = try outcome.get() else { return nil }
            coded.append(tile)
        }
        // Tiles that disagree about their own matrix cannot be one picture's planes.
        guard let first = coded.first, coded.allSatisfy({ $0 == first }) else { return nil }
        let matrixCode = itemColour?.matrix ?? first.matrix
        guard let matrix = YCbCrLayout.Matrix(code: matrixCode) else { return nil }
        let fullRange = itemColour?.fullRange ?? first.fullRange
        // HEVC's chroma sits on the left column unless the VUI says otherwise (H.273 type 0).
        let layout = YCbCrLayout(matrix: matrix, range: fullRange ? .full : .limited, siting: .left)
        let assembled = YCbCr420Image(packed: storage.pointer, width: width, height: height, layout: layout, owner: storage)
        return assembled.oriented(plan.turn)
    }

    /// The parameter-set NAL units of an `hvcC` box, each behind a 4-byte length, and the length size of the
    /// item's own NAL units.
    private static func parameterSets(_ hvcC: ISOBMFF.Box, in file: [UInt8]) -> (headers: [UInt8], lengthSize: Int)? {
        var cursor = ByteCursor(file, hvcC.payload)
        guard cursor.skip(21) != nil, let lengthByte = cursor.u8(), let arrays = cursor.u8() else { return nil }
        var headers: [UInt8] = []
        for _ in 0..<arrays {
            guard cursor.u8() != nil, let count = cursor.u16() else { return nil }
            for _ in 0..<count {
                guard let length = cursor.u16(), length > 0, let unit = cursor.bytes(Int(length)) else { return nil }
                headers += [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)] + unit
            }
        }
        return headers.isEmpty ? nil : (headers, Int(lengthByte & 3) + 1)
    }

    /// A grid item's ImageGrid data as libheif 1.15 reads it (version 0; 16-bit sizes, or 32-bit with flag 1);
    /// nil for anything else, a length other than the flags give included.
    struct GridDescriptor {
        let rows: Int, columns: Int, width: Int, height: Int

        init?(_ data: ArraySlice<UInt8>) {
            let bytes = Array(data)
            guard bytes.count >= 8, bytes[0] == 0 else { return nil }
            let wide = bytes[1] & 1 != 0
            guard bytes.count == (wide ? 12 : 8) else { return nil }
            func field(_ at: Int, _ size: Int) -> Int { bytes[at..<at + size].reduce(0) { $0 << 8 | Int($1) } }
            rows = Int(bytes[2]) + 1
            columns = Int(bytes[3]) + 1
            width = wide ? field(4, 4) : field(4, 2)
            height = wide ? field(8, 4) : field(6, 2)
        }
    }

    /// Where each item's data lies in the file, for items stored in the file itself (construction method 0)
    /// or in the `idat` box (method 1, offsets from its payload) in one or more extents that fit inside it;
    /// others are left out. Adjacent extents must follow on.
    private static func itemLocations(_ iloc: ISOBMFF.Box, in file: [UInt8], idat: Range<Int>?) -> [UInt32: Range<Int>] {
        var cursor = ByteCursor(file, iloc.payload)
        guard let version = cursor.fullBoxVersion(), version <= 2, let sizes = cursor.u8(), let more = cursor.u8() else { return [:] }
        let (offsetSize, lengthSize, baseSize) = (Int(sizes >> 4), Int(sizes & 15), Int(more >> 4))
        let indexSize = version >= 1 ? Int(more & 15) : 0
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize), [0, 4, 8].contains(indexSize),
              let count = version < 2 ? cursor.u16().map({ UInt32($0) }) : cursor.u32()
        else { return [:] }
        func field(_ size: Int) -> UInt64? { size == 0 ? 0 : cursor.unsigned(size) }
        var locations: [UInt32: Range<Int>] = [:]
        for _ in 0..<count {
            guard let id = cursor.itemID(wide: version == 2) else { break }
            var method: UInt16 = 0
            if version >= 1 {
                guard let value = cursor.u16() else { break }
                method = value & 15
            }
            guard let reference = cursor.u16(), let base = field(baseSize), let extents = cursor.u16() else { break }
            var range: Range<Int>?
            let region: Range<Int>? = method == 0 ? 0..<file.count : method == 1 ? idat : nil
            var usable = region != nil && reference == 0 && extents > 0
            for _ in 0..<extents {
                guard field(indexSize) != nil, let offset = field(offsetSize), let length = field(lengthSize) else { return locations }
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard usable, let region, !overflow, length > 0, start <= UInt64(region.count), length <= UInt64(region.count) - start else {
                    usable = false
                    continue
                }
                let extent = region.lowerBound + Int(start)..<region.lowerBound + Int(start + length)
                if let current = range {
                    guard current.upperBound == extent.lowerBound else { usable = false; continue }
                    range = current.lowerBound..<extent.upperBound
                } else {
                    range = extent
                }
            }
            if usable, let range, locations[id] == nil { locations[id] = range }
        }
        return locations
    }

    /// Each `infe` entry's item type.
    private static func itemTypes(_ iinf: ISOBMFF.Box, in file: [UInt8]) -> [UInt32: String] {
        var types: [UInt32: String] = [:]
        for item in ISOBMFF.items(iinf, in: file) where types[item.id] == nil { types[item.id] = item.type }
        return types
    }

    /// An `ispe` box's width and height, when both are positive and at most 65,535.
    private static func extent(_ ispe: ISOBMFF.Box, in file: [UInt8]) -> (width: Int, height: Int)? {
        var cursor = ByteCursor(file, ispe.payload)
        guard cursor.fullBoxVersion() != nil, let width = cursor.u32(), let height = cursor.u32(),
              (1...65535).contains(width), (1...65535).contains(height) else { return nil }
        return (Int(width), Int(height))
    }
}

private extension ByteCursor {
    /// The next `count` bytes, or nil when fewer are left.
    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}
