@testable import ImagePrep

/// GIFs written byte by byte in the tests, with whatever their headers claim. The LZW data is the
/// simplest valid kind: a clear code before every pixel, so codes never grow past 3 bits (2-bit pixels).
enum HostileGIF {
    struct Frame {
        var left = 0, top = 0, width: Int, height: Int
        /// Palette indices 0-3, row by row; fewer than width x height makes data that ends early.
        var pixels: [UInt8]
        /// A local palette of 2, 4, 8... entries.
        var palette: [[UInt8]]? = nil
        var delay = 10
    }

    static func file(width: Int, height: Int, globalPalette: [[UInt8]]? = [[0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255]],
                     frames: [Frame]) -> [UInt8] {
        var out = Array("GIF89a".utf8) + le16(width) + le16(height)
        if let palette = globalPalette {
            out += [0xF1, 0, 0] + palette.flatMap { $0 }
        } else {
            out += [0, 0, 0]
        }
        for frame in frames {
            out += [0x21, 0xF9, 4, 0] + le16(frame.delay) + [0, 0]
            out += [0x2C] + le16(frame.left) + le16(frame.top) + le16(frame.width) + le16(frame.height)
            if let palette = frame.palette {
                // The size field n means 2^(n+1) entries.
                out += [0x80 | UInt8(max(0, palette.count.trailingZeroBitCount - 1))] + palette.flatMap { $0 }
            } else {
                out += [0]
            }
            out += [2] + subBlocks(lzw(frame.pixels))
        }
        return out + [0x3B]
    }

    /// Clear (4), pixel, clear, pixel, ..., end (5): 3-bit codes, least significant bit first.
    static func lzw(_ pixels: [UInt8]) -> [UInt8] {
        var codes: [UInt8] = []
        for pixel in pixels { codes += [4, pixel & 3] }
        codes.append(5)
        var out: [UInt8] = [], accumulator = 0, bits = 0
        for code in codes {
            accumulator |= Int(code) << bits
            bits += 3
            while bits >= 8 { out.append(UInt8(accumulator & 0xFF)); accumulator >>= 8; bits -= 8 }
        }
        if bits > 0 { out.append(UInt8(accumulator & 0xFF)) }
        return out
    }

    static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < data.count {
            let end = min(start + 255, data.count)
            out += [UInt8(end - start)] + data[start..<end]
            start = end
        }
        return out + [0]
    }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
}
