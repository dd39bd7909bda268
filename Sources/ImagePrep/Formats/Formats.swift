/// The registries: one line per format. A new format is a folder beside this file with its reader
/// and/or writer (an input format also declares its `SniffedFormat` value there, an output format its
/// `OutputFormat` value), plus its line here.
public enum Formats {
    /// In sniffing order: formats recognised by a fixed signature first, ISO-BMFF (HEIF) last.
    public static let readers: [any ImageFormatReader] = [
        JPEGFormatReader(),
        PNGFormatReader(),
        WebPFormatReader(),
        GIFFormatReader(),
        JXLFormatReader(),
        HEIFFormatReader(),
    ]

    /// In the order help lists them.
    public static let writers: [any ImageFormatWriter] = [
        JPEGFormatWriter(),
        PNGFormatWriter(),
        WebPFormatWriter(),
        JXLFormatWriter(),
        AVIFFormatWriter(),
        HEICFormatWriter(),
    ]

    /// What `--to` and `ConversionSettings` default to: the first writer.
    public static var defaultOutput: OutputFormat { writers[0].format }

    /// The reader of a sniffed format.
    public static func reader(for format: SniffedFormat) -> any ImageFormatReader {
        guard let reader = readers.first(where: { $0.reads(format) }) else {
            preconditionFailure("no reader for \(format) in Formats.readers")   // FormatRegistryTests checks every one
        }
        return reader
    }

    /// The writer of an output format.
    public static func writer(for format: OutputFormat) -> any ImageFormatWriter {
        guard let writer = writers.first(where: { $0.format == format }) else {
            preconditionFailure("no writer for \(format) in Formats.writers")   // FormatRegistryTests checks every one
        }
        return writer
    }

    /// "jpeg, webp, avif or heic": how help and messages list formats.
    public static func list(_ names: [String], _ conjunction: String = "or") -> String {
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}
