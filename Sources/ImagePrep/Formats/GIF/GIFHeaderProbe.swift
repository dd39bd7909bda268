extension HeaderProbe {
    /// The logical screen and the number of frames (a walk over the records, skipping the image data).
    /// Alpha when the file is animated or any frame has a transparent colour.
    static func gif(_ file: [UInt8]) -> ImageHeader? {
        guard let gif = GIFStructure(file, maxImages: Animation.maxFrames + 1), !gif.images.isEmpty else { return nil }
        return gif.header
    }
}
