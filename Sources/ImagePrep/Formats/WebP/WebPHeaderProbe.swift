extension HeaderProbe {
    /// The first chunk after `RIFF size WEBP`: VP8X gives the canvas (24-bit sides minus one, alpha flag
    /// 0x10), VP8L its 14-bit sides minus one and an alpha bit, VP8 the key frame's 14-bit sides.
    static func webp(_ file: [UInt8]) -> ImageHeader? {
        guard file.count >= 30 else { return nil }
        func le(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(file[at + $1]) << (8 * $1) } }
        switch String(decoding: file[12..<16], as: UTF8.self) {
        case "VP8X":
            let animated = file[20] & 0x02 != 0
            return ImageHeader(width: le(24, 3) + 1, height: le(27, 3) + 1, hasAlpha: animated || file[20] & 0x10 != 0,
                               frames: animated ? max(webpFrameCount(file), 1) : 1)
        case "VP8L":
            guard file[20] == 0x2F else { return nil }
            let bits = le(21, 4)
            return ImageHeader(width: bits & 0x3FFF + 1, height: (bits >> 14) & 0x3FFF + 1, hasAlpha: (bits >> 28) & 1 == 1)
        case "VP8 ":
            guard file[23] == 0x9D, file[24] == 0x01, file[25] == 0x2A else { return nil }
            return ImageHeader(width: le(26, 2) & 0x3FFF, height: le(28, 2) & 0x3FFF)
        default:
            return nil
        }
    }

    /// ANMF chunks after the VP8X chunk, each skipped by its declared size (counting stops past the frame limit).
    static func webpFrameCount(_ file: [UInt8]) -> Int {
        var offset = 30, frames = 0
        while offset + 8 <= file.count, frames <= Animation.maxFrames {
            let size = (0..<4).reduce(0) { $0 | Int(file[offset + 4 + $1]) << (8 * $1) }
            if file[offset..<offset + 4].elementsEqual("ANMF".utf8) { frames += 1 }
            offset += 8 + size + size % 2
        }
        return frames
    }
}
