import Foundation
import Testing
@testable import ImagePrep

/// HEIC grids whose `ispe`, grid descriptor and tiles disagree, built here from four 64x64 tiles heif-enc
/// codes: the Y'CbCr path (tiles decoded with libde265) and libheif's RGB path must give one picture, the
/// same size and the same pixels, or both refuse the file. The plain grid is checked to take the tile
/// path, so the comparison is not of libheif with itself.
@Suite(.enabled(if: TestSupport.toolExists("heif-enc"), "heif-enc (libheif-examples) is not installed"))
struct HeifGridAgreementTests {
    typealias H = HostileFiles
    static let tileSide = 64

    /// One heif-enc tile: its `hvcC` box and its coded data.
    struct Tile {
        var hvcC: [UInt8]
        var data: [UInt8]
    }

    static func tiles(in dir: URL) throws -> [Tile] {
        try (0..<4).map { index in
            var pixels: [UInt8] = []
            for y in 0..<tileSide {
                for x in 0..<tileSide {
                    let noise = (x &* 7919 &+ y &* 104_729 &+ index &* 31) % 40
                    pixels += [UInt8(x * 2 + index * 20 + noise), UInt8(y * 3 + noise), UInt8(200 - index * 40 + noise / 2)]
                }
            }
            let png = dir.appendingPathComponent("tile\(index).png"), heic = dir.appendingPathComponent("tile\(index).heic")
            try Data(try PNGEncoder().encode(.rgb(PixelBuffer(width: tileSide, height: tileSide, channels: 3, pixels: pixels)),
                                             quality: 100, metadata: ImageMetadata())).write(to: png)
            let run = try TestSupport.run("heif-enc", ["-q", "90", png.path, "-o", heic.path])
            try #require(run.status == 0, "heif-enc: \(run.stderr)")
            let file = try TestSupport.bytes(heic.path)
            let ipco = try #require(ISOBMFF.find(["meta", "iprp", "ipco"], in: file))
            let hvcC = try #require(ISOBMFF.children(of: ipco, in: file).first { $0.type == "hvcC" })
            let mdat = try #require(ISOBMFF.topLevelBoxes(file).first { $0.type == "mdat" })
            return Tile(hvcC: Array(file[hvcC.start..<hvcC.end]), data: Array(file[mdat.payload]))
        }
    }

    /// A grid over the four tiles: the grid's `ispe`, its descriptor (in `idat`) and each tile's `ispe` as given.
    static func grid(_ tiles: [Tile], gridSize: (Int, Int), descriptor: [UInt8], tileSize: (Int, Int) = (tileSide, tileSide)) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { H.bigEndian16(UInt16(v)) }
        func infe(_ id: Int, _ type: String, hidden: Bool = false) -> [UInt8] {
            H.box("infe", [2, 0, 0, hidden ? 1 : 0] + u16(id) + u16(0) + Array(type.utf8) + [0])
        }
        let hdlr = H.fullBox("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = H.fullBox("pitm", u16(5))
        let iinf = H.fullBox("iinf", u16(5) + (1...4).flatMap { infe($0, "hvc1", hidden: true) } + infe(5, "grid"))
        let iref = H.fullBox("iref", H.box("dimg", u16(5) + u16(4) + (1...4).flatMap(u16)))
        func ispe(_ size: (Int, Int)) -> [UInt8] { H.fullBox("ispe", H.bigEndian(UInt32(size.0)) + H.bigEndian(UInt32(size.1))) }
        // Properties 1-4 each tile's hvcC, 5 the tiles' ispe, 6 the grid's.
        let ipco = H.box("ipco", tiles.flatMap(\.hvcC) + ispe(tileSize) + ispe(gridSize))
        let ipma = H.fullBox("ipma", H.bigEndian(5) + (1...4).flatMap { u16($0) + [2, 0x80 | UInt8($0), 5] } + u16(5) + [1, 6])
        let iprp = H.box("iprp", ipco + ipma)
        let idat = H.box("idat", descriptor)
        func iloc(mdatStart: Int) -> [UInt8] {
            func entry(_ id: Int, method: Int, offset: Int, length: Int) -> [UInt8] {
                u16(id) + u16(method) + u16(0) + u16(1) + H.bigEndian(UInt32(offset)) + H.bigEndian(UInt32(length))
            }
            var offset = mdatStart
            var entries: [UInt8] = []
            for (index, tile) in tiles.enumerated() {
                entries += entry(index + 1, method: 0, offset: offset, length: tile.data.count)
                offset += tile.data.count
            }
            return H.fullBox("iloc", version: 1, [0x44, 0x00] + u16(5) + entries + entry(5, method: 1, offset: 0, length: descriptor.count))
        }
        func meta(mdatStart: Int) -> [UInt8] { H.fullBox("meta", hdlr + pitm + iloc(mdatStart: mdatStart) + iinf + iref + iprp + idat) }
        let mdatStart = H.heicFileType.count + meta(mdatStart: 0).count + 8
        return H.heicFileType + meta(mdatStart: mdatStart) + H.box("mdat", tiles.flatMap(\.data))
    }

    /// A version-0 descriptor with 16-bit sizes.
    static func descriptor(rows: Int = 2, columns: Int = 2, _ width: Int, _ height: Int) -> [UInt8] {
        [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + H.bigEndian16(UInt16(width)) + H.bigEndian16(UInt16(height))
    }

    static func decode(_ file: [UInt8], planes: Bool) -> Result<DecodedImage, any Error> {
        var options = DecodeOptions(maxPixels: 1 << 24)
        options.keepsYCbCr420 = planes
        return Result { try HeifDecoder().decode(file, options: options) }
    }

    @Test func everyDisagreementGivesLibheifsPicture() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tiles = try Self.tiles(in: dir)
        let cases: [(name: String, file: [UInt8])] = [
            ("plain", Self.grid(tiles, gridSize: (120, 112), descriptor: Self.descriptor(120, 112))),
            ("plain-32-bit", Self.grid(tiles, gridSize: (120, 112), descriptor: [0, 1, 1, 1] + H.bigEndian(120) + H.bigEndian(112))),
            ("descriptor-larger", Self.grid(tiles, gridSize: (120, 112), descriptor: Self.descriptor(128, 128))),
            ("descriptor-smaller", Self.grid(tiles, gridSize: (120, 112), descriptor: Self.descriptor(100, 90))),
            ("descriptor-swapped", Self.grid(tiles, gridSize: (120, 112), descriptor: Self.descriptor(112, 120))),
            ("descriptor-one-row", Self.grid(tiles, gridSize: (120, 112), descriptor: Self.descriptor(rows: 1, columns: 4, 120, 112))),
            ("descriptor-truncated", Self.grid(tiles, gridSize: (120, 112), descriptor: Array(Self.descriptor(120, 112).prefix(6)))),
            ("descriptor-trailing", Self.grid(tiles, gridSize: (120, 112), descriptor: Self.descriptor(120, 112) + [0, 0])),
            ("descriptor-version-1", Self.grid(tiles, gridSize: (120, 112), descriptor: [1] + Self.descriptor(120, 112).dropFirst())),
            ("ispe-larger", Self.grid(tiles, gridSize: (128, 128), descriptor: Self.descriptor(120, 112))),
            ("tile-ispe-smaller", Self.grid(tiles, gridSize: (96, 96), descriptor: Self.descriptor(96, 96), tileSize: (48, 48))),
            ("tile-ispe-larger", Self.grid(tiles, gridSize: (150, 150), descriptor: Self.descriptor(150, 150), tileSize: (80, 80))),
        ]
        for (name, file) in cases {
            let viaPlanes = Self.decode(file, planes: true), viaLibheif = Self.decode(file, planes: false)
            if name.hasPrefix("plain") {
                guard case .success(let decoded) = viaPlanes, case .ycbcr420 = decoded.content else {
                    Issue.record("\(name): the plain grid did not take the tile path: \(viaPlanes)")
                    continue
                }
            }
            switch (viaPlanes, viaLibheif) {
            case (.success(let planes), .success(let libheif)):
                let (a, b) = (planes.content.rgb(), libheif.content.rgb())
                #expect((a.width, a.height) == (b.width, b.height), "\(name): \(a.width)x\(a.height) from the tiles, \(b.width)x\(b.height) from libheif")
                if (a.width, a.height) == (b.width, b.height) {
                    let psnr = TestSupport.psnr(a, b)
                    #expect(psnr > 40, "\(name): \(psnr) dB between the two paths")
                }
            case (.failure, .failure):
                break
            default:
                Issue.record("\(name): one path decodes and the other does not: \(viaPlanes) / \(viaLibheif)")
            }
        }
    }
}
