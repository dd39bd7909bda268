/// The metadata that travels from input to output, as raw bytes so nothing is lost on the way.
public struct ImageMetadata: Sendable, Equatable {
    /// A TIFF structure starting with "II*\0" or "MM\0*" (no "Exif\0\0" prefix, no libheif offset).
    public var exif: [UInt8]?
    /// One XMP packet, UTF-8 XML.
    public var xmp: [UInt8]?
    /// An ICC profile, byte for byte as the source had it.
    public var icc: [UInt8]?
    /// Photoshop image resources ("8BIM" blocks), as a JPEG APP13 "Photoshop 3.0" segment holds them; the
    /// IPTC-IIM record (keywords, by-line, copyright, caption) is resource 0x0404. A HEIF's bare IPTC item
    /// arrives wrapped in such a resource (see `IPTC`).
    public var iptc: [UInt8]?
    /// JPEG comments (COM segments), each as stored.
    public var comments: [[UInt8]]
    /// The rest of an XMP packet too large for one JPEG segment (JPEG only; see `ExtendedXMP`).
    public var extendedXMP: ExtendedXMP?
    /// JPEG segments that no output carries (an MPF index, JUMBF, Ducky), named for a warning.
    public var uncarriedSegments: [String] = []
    /// Why the source's ICC profile was dropped on reading (damaged, or for other pixels: ICCProfileCheck);
    /// nil when it had none or it was kept. A file passed through as it is must not carry it on.
    public var droppedICC: String?

    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, icc: [UInt8]? = nil, iptc: [UInt8]? = nil,
                comments: [[UInt8]] = [], extendedXMP: ExtendedXMP? = nil) {
        self.exif = exif
        self.xmp = xmp
        self.icc = icc
        self.iptc = iptc
        self.comments = comments
        self.extendedXMP = extendedXMP
    }

    /// The blocks present, in a fixed order.
    public var blocks: [MetadataBlock] {
        MetadataBlock.allCases.filter { block in
            switch block {
            case .exif: exif != nil
            case .xmp: xmp != nil
            case .icc: icc != nil
            case .iptc: iptc != nil
            case .comment: !comments.isEmpty
            case .extendedXMP: extendedXMP != nil
            }
        }
    }

    /// The same metadata without `block`.
    func removing(_ block: MetadataBlock) -> ImageMetadata {
        var copy = self
        switch block {
        case .exif: copy.exif = nil
        case .xmp: copy.xmp = nil
        case .icc: copy.icc = nil
        case .iptc: copy.iptc = nil
        case .comment: copy.comments = []
        case .extendedXMP: copy.extendedXMP = nil
        }
        return copy
    }
}

/// The kinds of metadata imgprep reads. Each encoder says which of them its format can carry
/// (`ImageEncoding.carriedMetadata`); the others are dropped with a warning that names them.
public enum MetadataBlock: String, Sendable, CaseIterable {
    case exif, xmp, icc, iptc, comment, extendedXMP

    /// How warnings name it.
    public var name: String {
        switch self {
        case .exif: "EXIF data"
        case .xmp: "XMP packet"
        case .icc: "ICC profile"
        case .iptc: "IPTC data (Photoshop APP13 resources)"
        case .comment: "comments"
        case .extendedXMP: "extended XMP (the part of the XMP packet past 64 KB)"
        }
    }
}
