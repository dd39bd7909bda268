extension ImageInspector {
    /// From the RIFF chunks alone.
    static func inspectWebP(_ file: [UInt8]) throws -> ImageDescription {
        let webp = try WebPContainer(file)
        var description = describe(webp.metadata, format: "WebP (\(webp.kind.rawValue))", width: webp.width, height: webp.height)
        description.hasAlpha = webp.hasAlpha
        if webp.kind == .animated {
            description.contents = ["\(webp.frameCount) frame\(webp.frameCount == 1 ? "" : "s") (kept in WebP output; the first is converted to other formats)"]
            description.animation = AnimationSummary(frames: webp.frameCount, totalDuration: webp.totalDuration,
                                                     plays: webp.loopCount, screen: PixelSize(width: webp.width, height: webp.height))
        }
        description.notes += webp.warnings
        return description
    }
}
