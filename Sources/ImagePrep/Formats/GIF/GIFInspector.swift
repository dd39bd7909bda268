extension ImageInspector {
    /// From the records alone: no frame is decoded.
    static func inspectGIF(_ file: [UInt8]) throws -> ImageDescription {
        let gif = try GIFDecoder.structure(of: file)
        var warnings: [String] = []
        let metadata = gif.metadata(warnings: &warnings)
        let animated = gif.frameCount > 1
        var description = describe(metadata, format: animated ? "GIF (animated)" : "GIF", width: gif.canvas.width, height: gif.canvas.height)
        description.notes += warnings
        description.hasAlpha = gif.header.hasAlpha
        if animated {
            description.animation = AnimationSummary(frames: gif.frameCount, totalDuration: gif.playedDuration,
                                                     plays: GIFDecoder.webpLoopCount(gif.loopCount),
                                                     screen: PixelSize(width: gif.screenWidth, height: gif.screenHeight))
            description.contents = ["\(gif.frameCount) frames (kept in WebP output; the first is converted to other formats)"]
        }
        if gif.endsEarly { description.notes.append("the records are damaged or cut short after frame \(gif.frameCount)") }
        return description
    }
}
