import ImagePrep

/// What help and usage messages say about the output formats, from their writers (`Formats.writers`).
enum OutputFormatHelp {
    /// The format `--to` defaults to.
    static let defaultFormat = ConversionSettings().format
    /// The formats a byte budget can search: those with a quality.
    static let lossy = OutputFormat.allCases.filter { $0.writer.traits.isLossy }
    /// The lossless formats a quality, target or budget turns to a palette: they too can be searched.
    static let paletted = OutputFormat.allCases.filter { $0.writer.paletteTraits != nil }
    /// What `compress` writes: every format a budget can search.
    static let budgeted = OutputFormat.allCases.filter { lossy.contains($0) || paletted.contains($0) }
    /// The formats that are always lossless.
    static let lossless = OutputFormat.allCases.filter { !$0.writer.traits.isLossy }
    /// The formats `--lossless` applies to.
    static let withLosslessMode = OutputFormat.allCases.filter { $0.writer.offersLosslessMode }
    /// The formats whose transparent pixels go onto `--background`.
    static let withoutAlpha = OutputFormat.allCases.filter { !$0.writer.traits.keepsAlpha }
    /// The formats that can carry an HDR gain map.
    static let withGainMaps = OutputFormat.allCases.filter { $0.writer.traits.carriesGainMap }
    /// The formats `--subsampling` applies to.
    static let subsamplingChroma = OutputFormat.allCases.filter { $0.writer.traits.subsamplesChroma }
    /// What `--to auto` chooses from without `--auto-formats`: the web's three, those that are written here.
    static let defaultAutoFormats = ["avif", "webp", "jpeg"].compactMap(OutputFormat.init(name:)).filter(lossy.contains)
    /// The formats that keep animations.
    static let animated = OutputFormat.allCases.filter { $0.writer.traits.keepsAnimation }
    /// "JPEG, PNG, WebP, AVIF or HEIC".
    static func names(_ formats: [OutputFormat], _ conjunction: String = "or") -> String {
        Formats.list(formats.map(\.writer.displayName), conjunction)
    }

    /// "jpg (.png, .webp, .avif, .heic) writes one input to that file": the extensions outputs get.
    static var extensions: String {
        let all = OutputFormat.allCases.map(\.fileExtension)
        return "\(all.first ?? "") (\(all.dropFirst().map { "." + $0 }.joined(separator: ", "))) writes one input to that file"
    }

    /// "webp defaults to 80, avif and heic to 50": the lossy formats whose default quality differs from
    /// the default format's, grouped by default.
    static var otherDefaultQualities: String {
        var groups: [(quality: Int, formats: [String])] = []
        for format in lossy where format.defaultQuality != defaultFormat.defaultQuality {
            if let index = groups.firstIndex(where: { $0.quality == format.defaultQuality }) {
                groups[index].formats.append(format.rawValue)
            } else {
                groups.append((format.defaultQuality, [format.rawValue]))
            }
        }
        return groups.enumerated().map { index, group in
            "\(Formats.list(group.formats, "and"))\(index == 0 ? " defaults" : "") to \(group.quality)"
        }.joined(separator: ", ")
    }
}
