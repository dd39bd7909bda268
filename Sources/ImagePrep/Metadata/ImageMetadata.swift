/// The metadata that travels from input to output, as raw bytes so nothing is lost on the way.
public struct ImageMetadata: Sendable, Equatable {
    /// A TIFF structure starting with "II*\0" or "MM\0*" (no "Exif\0\0" prefix, no libheif offset).
    public var exif: [UInt8]?
    /// One XMP packet, UTF-8 XML.
    public var xmp: [UInt8]?
    /// An ICC profile, byte for byte as the source had it.
    public var icc: [UInt8]?

    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, icc: [UInt8]? = nil) {
        self.exif = exif
        self.xmp = xmp
        self.icc = icc
    }
}
