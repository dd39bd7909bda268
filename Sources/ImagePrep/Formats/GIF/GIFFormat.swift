/// GIF in (GIF87a, GIF89a): giflib, a still picture or an animation (kept in WebP output).
struct GIFFormatReader: ImageFormatReader {
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        GIFStructure.signatures.contains(where: { bytes.starts(with: $0) }) ? .success(.gif) : nil
    }
    var descriptor: ReaderDescriptor { Self.descriptor }
    static let descriptor: ReaderDescriptor = {
        var descriptor = ReaderDescriptor(displayName: "GIF", libraries: [.giflib], reads: { $0 == .gif }, fileName: { _ in "a GIF image" },
                                          probeHeader: HeaderProbe.gif, describe: { file, _ in try ImageInspector.inspectGIF(file) })
        descriptor.storesLosslessly = true
        return descriptor
    }()
    var decoder: any ImageDecoding { GIFDecoder() }
}

extension SniffedFormat {
    public static let gif = SniffedFormat(declaring: "gif")
}
