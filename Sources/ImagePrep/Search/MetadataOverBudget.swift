/// The error for metadata that leaves a budget no room for a picture: what the metadata is, and which
/// option would remove what is left, never one that was already given.
enum MetadataOverBudget {
    static func error(_ metadata: ImageMetadata, bytes: Int, budget: ByteBudget, settings: ConversionSettings) -> ImagePrepError {
        let parts = [("EXIF", metadata.exif?.count ?? 0), ("XMP", metadata.xmp?.count ?? 0), ("IPTC", metadata.iptc?.count ?? 0),
                     ("comments", metadata.comments.reduce(0) { $0 + $1.count }), ("ICC profile", metadata.icc?.count ?? 0)]
            .filter { $0.1 > 0 }
        guard !parts.isEmpty else {
            return ImagePrepError(.doesNotFit, "\(budget.formatted) leaves no room for a picture (it needs about 1 KB beyond the metadata)")
        }
        let listed = parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        var options: [String] = []
        let strippable = parts.contains { $0.0 != "ICC profile" }
        if !settings.stripMetadata && (strippable || settings.color == .srgb) {
            // Under --color srgb the profile is ours and goes with the rest (see ImagePipeline.toSRGB).
            options.append("--strip-metadata drops " + (settings.color == .srgb ? "all of it" : "all but the ICC profile"))
        }
        if let icc = metadata.icc, settings.color == .keep {
            if settings.stripMetadata {
                options.append("--color srgb converts the pixels to sRGB and, with --strip-metadata, drops the profile")
            } else if icc.count > SRGBProfile.bytes.count {
                options.append("--color srgb converts the pixels and swaps the \(icc.count)-byte profile for a \(SRGBProfile.bytes.count)-byte sRGB one")
            }
        }
        let advice = options.isEmpty ? "no option removes more; the budget is too small" : options.joined(separator: "; ")
        return ImagePrepError(.doesNotFit,
            "the metadata alone is \(bytes) bytes (\(listed)), too close to \(budget.formatted): \(advice)")
    }
}
