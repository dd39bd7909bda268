import Testing
@testable import ImagePrep

struct DominantColorTests {
    @Test("The colour covering most of the picture wins, as its mean, in lower-case #rrggbb")
    func majority() {
        // 70% a slightly varying red, 30% blue.
        let picture = Pictures.make(100, 50) { x, y in x < 70 ? (UInt8(200 + (x + y) % 8), 20, 30, 255) : (10, 20, 240, 255) }
        let hex = DominantColor.hex(of: picture)
        #expect(hex.count == 7 && hex.hasPrefix("#") && hex == hex.lowercased())
        let value = Int(hex.dropFirst(), radix: 16) ?? -1
        let (r, g, b) = (value >> 16, value >> 8 & 255, value & 255)
        #expect((200...207).contains(r) && g == 20 && b == 30, "\(hex)")
    }

    @Test("Flat pictures of any size give their colour exactly")
    func flat() {
        #expect(DominantColor.hex(of: Pictures.make(1, 1) { _, _ in (0x12, 0xab, 0x0f, 255) }) == "#12ab0f")
        #expect(DominantColor.hex(of: Pictures.make(3000, 1) { _, _ in (255, 255, 255, 255) }) == "#ffffff")
        #expect(DominantColor.hex(of: Pictures.make(1, 999) { _, _ in (0, 0, 1, 255) }) == "#000001")
    }

    @Test("Transparent pixels do not count; a wholly transparent or empty picture gives #000000, no trap")
    func alpha() {
        // Most pixels are a transparent green the page never shows; the visible ones are orange.
        let picture = Pictures.make(40, 40, alpha: true) { x, _ in x < 30 ? (0, 255, 0, 0) : (250, 140, 0, 255) }
        #expect(DominantColor.hex(of: picture) == "#fa8c00")
        #expect(DominantColor.hex(of: Pictures.make(8, 8, alpha: true) { _, _ in (9, 9, 9, 0) }) == "#000000")
        #expect(DominantColor.hex(of: PixelBuffer(width: 0, height: 0, channels: 3, pixels: [])) == "#000000")
        var lying = Pictures.make(4, 4) { _, _ in (1, 2, 3, 255) }
        lying.height = 1 << 40
        #expect(DominantColor.hex(of: lying) == "#000000")
    }

    @Test("A large picture is sampled, not read whole, and still gives its main colour")
    func large() {
        let picture = Pictures.make(1500, 1000) { x, y in (x + y) % 10 < 8 ? (30, 90, 160, 255) : (250, 250, 250, 255) }
        #expect(DominantColor.hex(of: picture) == "#1e5aa0")
    }
}
