import Foundation
@testable import ImagePrep

extension FuzzTarget {
    static let gif = FuzzTarget("gif", run: fuzzGIF)

    /// The GIF record walk, giflib's decoding and compositing, and the animation written as WebP and read
    /// back: what the headers promise (size, frames, the pixel cap) is what comes out.
    private static func fuzzGIF(_ bytes: [UInt8]) {
        let probed = HeaderProbe.gif(bytes)
        let options = DecodeOptions(maxPixels: 1 << 18, keepsAnimation: true)
        guard let decoded = try? GIFDecoder().decode(bytes, options: options) else { return }
        guard let header = probed else { preconditionFailure("decoded a GIF whose header the probe cannot read") }
        precondition(header.pixelCount <= options.maxPixels, "decoded a GIF over the pixel cap")
        precondition((decoded.content.width, decoded.content.height) == (header.width, header.height), "decoded size differs from the header")
        if case .animation(let animation) = decoded.content {
            precondition(animation.frames.count == header.frames, "frame count differs from the header")
            precondition(animation.frames.allSatisfy { $0.duration >= 20 }, "a frame shorter than browsers play it")
        } else {
            precondition(header.frames == 1, "an animated GIF decoded as a still picture")
        }
        guard let webp = try? WebPEncoder(lossless: bytes.count % 2 == 0).encode(decoded.content, quality: 50, metadata: decoded.metadata),
              let back = try? WebPDecoder().decode(webp, options: options) else { return }
        precondition((back.content.width, back.content.height) == (header.width, header.height), "the WebP written has another size")
    }
}
