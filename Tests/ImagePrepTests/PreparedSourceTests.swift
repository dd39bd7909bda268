import Testing
@testable import ImagePrep

/// `--to auto` prepares a source once for all its formats, and again only for a format that would decode
/// it differently (a still format given an animation, a format without gain maps given one).
struct PreparedSourceTests {
    static func source(_ content: DecodedPixels, gainMap: GainMapOrigin? = nil) -> PreparedSource {
        var decoded = DecodedImage(content: content, metadata: ImageMetadata(), orientation: .up)
        decoded.gainMap.origin = gainMap
        return PreparedSource(decoded: decoded, picture: content, upright: (content.width, content.height), gainMap: nil)
    }

    static let still = DecodedPixels.rgb(PixelBuffer(width: 2, height: 2, channels: 3, pixels: [UInt8](repeating: 9, count: 12)))
    static let animation = DecodedPixels.animation(Animation(frames: [
        .init(canvas: PixelBuffer(width: 2, height: 2, channels: 4, pixels: [UInt8](repeating: 1, count: 16)), duration: 100),
        .init(canvas: PixelBuffer(width: 2, height: 2, channels: 4, pixels: [UInt8](repeating: 2, count: 16)), duration: 100),
    ], loopCount: 0))

    /// The options asked for by each of `formats`, in turn, and how many times the source was prepared.
    static func preparations(_ formats: [OutputFormat], content: DecodedPixels, gainMap: GainMapOrigin? = nil) -> (count: Int, asked: [DecodeOptions]) {
        let settings = formats.map { format -> ConversionSettings in
            var one = ConversionSettings()
            one.format = format
            return one
        }
        let sources = PreparedSources(for: settings)
        var asked: [DecodeOptions] = []
        for one in settings {
            var options = DecodeOptions(maxPixels: 1000, keepsAnimation: one.format.writer.traits.keepsAnimation)
            options.readsGainMap = GainMapPlan.writes(one)
            _ = sources.prepared(for: options) { made in
                asked.append(made)
                return source(content, gainMap: gainMap)
            }
        }
        return (asked.count, asked)
    }

    @Test func aStillIsPreparedOnceForEveryFormat() {
        let (count, asked) = Self.preparations([.avif, .webp, .jpeg], content: Self.still)
        #expect(count == 1)
        // Asked for what any of them needs: every frame (WebP) and the gain map (JPEG).
        #expect(asked.first?.keepsAnimation == true && asked.first?.readsGainMap == true)
    }

    @Test func anAnimationIsPreparedAgainForAStillFormat() {
        let (count, asked) = Self.preparations([.webp, .avif, .jpeg], content: Self.animation)
        // WebP takes the animation; AVIF needs the first frame alone, which JPEG then shares.
        #expect(count == 2)
        #expect(asked.last?.keepsAnimation == false)
    }

    @Test func aGainMapIsPreparedAgainForAFormatWithoutOne() {
        let (count, asked) = Self.preparations([.jpeg, .avif, .webp], content: Self.still, gainMap: .ultraHDR)
        #expect(count == 2)
        #expect(asked.last?.readsGainMap == false)
    }
}
