/// The photo's own caption, for `alt`.
public enum ImageCaption {
    /// XMP `dc:description` (x-default first), else IPTC Caption-Abstract, else EXIF ImageDescription;
    /// "" when there is none. Valid UTF-8, control characters removed, trimmed; not escaped (the markup does that).
    public static func text(in metadata: ImageMetadata) -> String {
        ""  // stub
    }
}
