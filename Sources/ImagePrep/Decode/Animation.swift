/// An animation as a viewer shows it: every frame composited onto the full canvas (RGBA, straight
/// alpha), how long each stays up, and how many times the whole plays. Decoders do the compositing
/// (offsets, disposal, blending), so everything after them sees plain pictures.
public struct Animation: Sendable {
    public struct Frame: Sendable {
        /// The whole canvas after this frame was drawn: 4 channels, all frames the same size.
        public var canvas: PixelBuffer
        /// Milliseconds, as played (see `playedDuration(centiseconds:)`).
        public var duration: Int

        public init(canvas: PixelBuffer, duration: Int) {
            self.canvas = canvas
            self.duration = duration
        }
    }

    /// At least two frames (a single frame is a still picture).
    public var frames: [Frame]
    /// Times the animation plays: 0 forever, else at least 1.
    public var loopCount: Int

    public init(frames: [Frame], loopCount: Int) {
        precondition(frames.count >= 2, "an animation has at least two frames")
        self.frames = frames
        self.loopCount = loopCount
    }

    public var width: Int { frames[0].canvas.width }
    public var height: Int { frames[0].canvas.height }
    public var totalDuration: Int { frames.reduce(0) { $0 + $1.duration } }

    /// The same timing with every canvas changed by `transform` (resizing, colour conversion).
    func mapFrames(_ transform: (PixelBuffer) -> PixelBuffer) -> Animation {
        Animation(frames: frames.map { Frame(canvas: transform($0.canvas), duration: $0.duration) }, loopCount: loopCount)
    }

    /// A GIF delay as browsers (and gif2webp) play it: 0 and 10 ms are too fast to be meant and play as 100 ms.
    static func playedDuration(centiseconds: Int) -> Int {
        centiseconds <= 1 ? 100 : centiseconds * 10
    }

    /// The most frames one animation may have, whatever their size: each costs the encoder a fixed amount
    /// of work, so 100,000 tiny frames are refused from the headers like a huge picture.
    public static let maxFrames = 10_000
}

extension PixelBuffer {
    /// RGBA without a single transparent pixel as RGB, as other formats' decoders hand opaque pictures back.
    func droppingOpaqueAlpha() -> PixelBuffer {
        guard hasAlpha, stride(from: 3, to: pixels.count, by: 4).allSatisfy({ pixels[$0] == 255 }) else { return self }
        var rgb = [UInt8](); rgb.reserveCapacity(pixels.count / 4 * 3)
        for i in stride(from: 0, to: pixels.count, by: 4) { rgb += pixels[i..<i + 3] }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
    }
}
