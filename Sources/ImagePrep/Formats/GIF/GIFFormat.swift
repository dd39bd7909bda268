/// GIF in (GIF87a, GIF89a): giflib, a still picture or an animation (kept in WebP output).
struct GIFFormatReader: ImageFormatReader {
    func sniff(_ bytes: [UInt8]) -> Result<SniffedFormat, ImagePrepError>? {
        GIFStructure.signatures.contains(where: { bytes.starts(with: $0) }) ? .success(.gif) : nil
    }
    func reads(_ format: SniffedFormat) -> Bool { format == .gif }
    var displayName: String { "GIF" }
    func name(of format: SniffedFormat) -> String { "a GIF image" }
    func probeHeader(_ file: [UInt8]) -> ImageHeader? { HeaderProbe.gif(file) }
    var decoder: any ImageDecoding { GIFDecoder() }
    func describe(_ file: [UInt8], format: SniffedFormat) throws -> ImageDescription { try ImageInspector.inspectGIF(file) }
    var libraries: [CodecLibrary] { [.giflib] }
    var storesLosslessly: Bool { true }
}

extension SniffedFormat {
    public static let gif = SniffedFormat(declaring: "gif")
}
