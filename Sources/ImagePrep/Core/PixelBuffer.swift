/// Decoded pixels: 8 bits per sample, interleaved, rows tightly packed (no padding).
/// `channels` is 3 (RGB) or 4 (RGBA, straight alpha).
public struct PixelBuffer: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 3 || channels == 4, "PixelBuffer holds RGB or RGBA")
        precondition(pixels.count == width * height * channels, "pixel count does not match the size")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    public var hasAlpha: Bool { channels == 4 }
    public var rowBytes: Int { width * channels }
}
