import Foundation
import ImagePrep

// Every option imgprep takes, declared once: its names, its help, and how its value is parsed and checked.
// The commands' tables (SharedOptions and each command's spec) say which command takes which; the same
// declarations drive parsing, --help, the Markdown reference, the man page and the shell completions.
// Commands read them typed: `arguments[.quality]` is an `Int?`, `arguments[.dryRun]` a `Bool`, and a
// misspelt name does not compile.

/// `--to`: one format, or `auto` (per picture, the smallest of `--auto-formats` that meets the target or budget).
enum FormatChoice: Sendable, Equatable {
    case auto
    case format(OutputFormat)
    /// A comma-separated list: a web image set in each of them.
    case formats([OutputFormat])

    var format: OutputFormat? { if case .format(let format) = self { format } else { nil } }
}

extension Option<FormatChoice> {
    static let to = format(among: OutputFormat.allCases, "output format: \(Formats.list(OutputFormat.allCases.map(\.rawValue))), or auto (the smallest of --auto-formats that meets --target-score or --max-bytes), or a comma-separated list (avif,webp,jpeg): a set of outputs in each")

    /// `--to` for a command that writes only `formats` (`jpg` is `jpeg`, any letter case), or `auto`.
    static func format(among formats: [OutputFormat], _ help: String) -> Option {
        let names = formats.map(\.rawValue)
        return Option("to", nil, "FORMAT", help, default: OutputFormatHelp.defaultFormat.rawValue, values: names + ["auto"],
                      ValueParser(expected: Formats.list(names + ["auto"])) { text in
            if text.lowercased() == "auto" { return .auto }
            let listed = text.split(separator: ",", omittingEmptySubsequences: false).map { name in
                OutputFormat(name: name.trimmingCharacters(in: .whitespaces)).flatMap { formats.contains($0) ? $0 : nil }
            }
            guard listed.count > 1 else { return listed.first.flatMap { $0 }.map(FormatChoice.format) }
            var unique: [OutputFormat] = []
            for format in listed {
                guard let format, !unique.contains(format) else { return nil }
                unique.append(format)
            }
            return .formats(unique)
        })
    }
}

extension Option<[OutputFormat]> {
    static let autoFormats = Option("auto-formats", nil, "LIST", "the formats --to auto chooses from, comma-separated: any of \(Formats.list(OutputFormatHelp.lossy.map(\.rawValue)))",
                                    default: OutputFormatHelp.defaultAutoFormats.map(\.rawValue).joined(separator: ","),
                                    ValueParser(expected: "a comma-separated list of \(Formats.list(OutputFormatHelp.lossy.map(\.rawValue), "and"))") { text in
        let formats = text.split(separator: ",", omittingEmptySubsequences: false).map { OutputFormat(name: $0.trimmingCharacters(in: .whitespaces)) }
        guard !formats.isEmpty, formats.allSatisfy({ $0.map(OutputFormatHelp.lossy.contains) == true }) else { return nil }
        var unique: [OutputFormat] = []
        for case let format? in formats where !unique.contains(format) { unique.append(format) }
        return unique
    })
}

/// `--quality`: a number, or `auto` (the lowest quality that reaches `--target-score`).
enum QualityChoice: Sendable, Equatable, ExpressibleByIntegerLiteral {
    case auto
    case fixed(Int)

    init(integerLiteral value: Int) { self = .fixed(value) }

    var fixed: Int? { if case .fixed(let quality) = self { quality } else { nil } }
}

extension Option<QualityChoice> {
    static let quality = Option("quality", "q", "N", "quality 1-100 (the ceiling when --max-bytes is given), or auto: the lowest that reaches --target-score; \(OutputFormatHelp.otherDefaultQualities)",
                                default: "\(OutputFormatHelp.defaultFormat.defaultQuality)", values: ["auto"],
                                ValueParser(expected: "an integer from 1 to 100, or auto") { text in
        text.lowercased() == "auto" ? .auto : Int(text).flatMap { (1...100).contains($0) ? .fixed($0) : nil }
    })
}

extension Option<Double> {
    static let targetScore = Option("target-score", nil, "N", "the SSIMULACRA 2 score --quality auto reaches (\(Int(ScoreTarget.range.lowerBound))-\(Int(ScoreTarget.range.upperBound)); 90 visually lossless, 70 noticeable but not annoying); implies --quality auto",
                                    default: "\(Int(ScoreTarget.defaultScore))",
                                    ValueParser(expected: "a number from \(Int(ScoreTarget.range.lowerBound)) to \(Int(ScoreTarget.range.upperBound))") { text in
        Double(text).flatMap { $0.isFinite && ScoreTarget.range.contains($0) ? $0 : nil }
    })
}

extension Option<Int> {
    static let maxDimension = Option("max-dimension", nil, "N", "shrink so the long edge is exactly N pixels; never enlarges", .integer(in: 1...1_000_000))
    static let maxPixels = Option("max-pixels", nil, "N", "refuse inputs with more pixels than N before decoding", default: "300000000", .integer(in: 1...Int(Int32.max) * 4))
    static let maxInputSize = Option("max-input-size", nil, "SIZE", "refuse input files larger than SIZE before reading them, and cut downloads off there (units as --max-bytes)", default: "1GB", .byteSize("500MB or 2GiB"))
    static let minQuality = Option("min-quality", nil, "N", "lowest quality the search may use (--quality auto without --max-bytes: 1)", default: "40", .integer(in: 1...100))
    static let step = Option("step", nil, "N", "quality decrement for --search step", default: "5", .integer(in: 1...99))
    static let jobs = Option("jobs", "j", "N", "convert N files at a time", default: "number of cores", .integer(in: 1...256))
    static let memoryLimit = Option("memory-limit", nil, "SIZE", "start a file only while the memory estimated for the files in flight fits SIZE (a file bigger than SIZE runs alone)", default: "half the memory available", .byteSize("1500MB or 4GiB"))
    static let cacheMaxSize = Option("cache-max-size", nil, "SIZE", "keep the cache under SIZE, least recently used out first", default: "1GB", .byteSize("500MB or 2GiB"))
}

extension Option<BudgetChoice> {
    static let maxBytes = Option("max-bytes", nil, "SIZE", "search for the highest quality that fits SIZE (see compress); with --widths also per width: 480:40KB,960:120KB",
                                 ValueParser { text throws(InvalidValue) in
        guard let budget = BudgetChoice(parsing: text) else {
            // A size in bits anywhere in the list (`1Mb`, `480:40kb`) gets the spelling in bytes.
            let sizes = text.split(separator: ",").map { String($0.split(separator: ":").last ?? "") }
            throw .expected("a size such as 250000, 500KB, 1.5MB, 1M or 1MiB", hint: sizes.lazy.compactMap(ByteSize.hint(for:)).first)
        }
        return budget
    })
}

extension Option<String> {
    static let output = Option("output", "o", "DIR", "write outputs into DIR (created if missing) instead of next to each input; -o NAME.\(OutputFormatHelp.extensions); -o - writes one input (a file, or - for standard input) to standard output", .text)
    static let filesFrom = Option("files-from", nil, "FILE", "read input paths or URLs from FILE, one per line ('-' is standard input)", .text)
    static let cache = Option("cache", nil, "DIR", "reuse outputs filed by content in DIR and file new ones there (default: $IMGPREP_CACHE)", .text)
}

extension Option<RGBColor> {
    static let background = Option("background", nil, "COLOR", "colour under transparent pixels in \(Formats.list(OutputFormatHelp.withoutAlpha.map(\.writer.displayName))) output: white, black or #rrggbb", default: "white", values: ["white", "black"],
                                   ValueParser(expected: "white, black or #rrggbb", RGBColor.init(parsing:)))
}

extension Option<ColorHandling> {
    static let color = Option("color", nil, "MODE", "keep (the source's colour profile) or srgb (convert the pixels to sRGB, embed a compact sRGB profile)", default: "keep", values: ["keep", "srgb"],
                              ValueParser(expected: "keep or srgb") { ColorHandling(rawValue: $0.lowercased()) })
}

extension Option<HDRHandling> {
    static let hdr = Option("hdr", nil, "MODE", "keep (write an HDR photo's gain map as Ultra HDR \(Formats.list(OutputFormatHelp.withGainMaps.map(\.writer.displayName))); other formats warn and drop it) or drop (plain SDR)", default: "keep", values: ["keep", "drop"],
                            ValueParser(expected: "keep or drop") { HDRHandling(rawValue: $0.lowercased()) })
}

/// `--subsampling`: auto leaves the chroma layout to the quality (see ConversionSettings).
enum SubsamplingChoice: Sendable, Equatable {
    case auto
    case fixed(ChromaSubsampling)
}

extension Option<SubsamplingChoice> {
    static let subsampling = Option("subsampling", nil, "MODE", "\(Formats.list(OutputFormatHelp.subsamplingChroma.map(\.writer.displayName), "and")) chroma: auto (444 at quality 90+, 420 below and in budget searches; --quality auto tries both where that pays), 420, 422 or 444", default: "auto", values: ["auto", "420", "422", "444"],
                                    ValueParser(expected: "auto, 420, 422 or 444") {
                                        ["auto": .auto, "420": .fixed(.s420), "422": .fixed(.s422), "444": .fixed(.s444)][$0]
                                    })
}

/// `--search`: the step it goes down by is `--step`'s.
enum SearchMode: String, Sendable {
    case binary, step
}

extension Option<SearchMode> {
    static let search = Option("search", nil, "MODE", "binary (highest quality that fits) or step (from --quality down by --step)", default: "binary", values: ["binary", "step"],
                               ValueParser(expected: "binary or step") { SearchMode(rawValue: $0) })
}

extension Option<Double> {
    /// Seconds; 0 is no limit.
    static let timeout = Option("timeout", nil, "SECONDS", "give up on a file whose download or conversion takes longer (its worker is killed and replaced)", default: "600",
                                ValueParser(expected: "seconds, such as 30 or 0.5 (0 for no limit)") { text in
                                    Double(text).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
                                })
}

extension Option<ShardSpec> {
    static let shard = Option("shard", nil, "K/N", "convert only shard K of N (counted from 1), or 'auto' to read it from GitLab, CircleCI, Buildkite, Slurm or Kubernetes (with IMGPREP_SHARD_COUNT)",
                              ValueParser { text throws(InvalidValue) in
                                  do {
                                      return try ShardSpec(parsing: text, environment: ProcessInfo.processInfo.environment)
                                  } catch {
                                      throw .message("\(error)")
                                  }
                              })
}

extension Flag {
    static let lossless = Flag("lossless", nil, "lossless \(Formats.list(OutputFormatHelp.withLosslessMode.map(\.writer.displayName))) (with --to \(Formats.list(OutputFormatHelp.withLosslessMode.map(\.rawValue))))")
    static let inPlace = Flag("in-place", nil, "replace each input atomically, keeping its permissions")
    static let stripLocation = Flag("strip-location", nil, "remove where the photo was taken: EXIF GPS, XMP and IPTC location fields; keep everything else")
    static let stripGPS = Flag("strip-gps", nil, "the same as --strip-location")
    static let stripMetadata = Flag("strip-metadata", nil, "drop EXIF, XMP, IPTC and comments; the ICC profile stays so colours do not change")
    static let allowTruncated = Flag("allow-truncated", nil, "write what decodes of a JPEG whose data ends early (the rest grey), with a warning saying how much is missing; such a file is always re-encoded, never kept as it is")
    static let noDownscale = Flag("no-downscale", nil, "fail instead of shrinking when even --min-quality is over the budget")
    static let recursive = Flag("recursive", "r", "convert the images found under directory arguments, mirroring the tree into -o DIR")
    static let null = Flag("null", "0", "paths from --files-from or standard input are separated by NUL (find -print0)")
    static let skipExisting = Flag("skip-existing", nil, "leave outputs that already exist alone")
    static let update = Flag("update", nil, "leave outputs that are newer than their input alone")
    static let dryRun = Flag("dry-run", nil, "print what would be written; write nothing")
    static let preserveMtime = Flag("preserve-mtime", nil, "give each output its input's modification time")
    static let failFast = Flag("fail-fast", nil, "stop at the first failure")
    static let json = Flag("json", nil, "print one JSON object per file, then a summary object, on standard output")
    static let quiet = Flag("quiet", nil, "print only errors")
    static let verbose = Flag("verbose", "v", "print a line per file (input -> output, size, quality)")
    static let help = Flag("help", "h", "show this help")
}

// Inputs given as URLs (Sources/ImagePrep/Fetch).
extension Option<String> {
    static let httpCache = Option("http-cache", nil, "DIR", "keep downloaded responses in DIR and revalidate them on later runs (default: http/ inside --cache)", .text)
    static let cacert = Option("cacert", nil, "FILE", "trust the certificates in FILE (PEM) for https, as well as the system's", .text)
}

extension Flag {
    static let noNetwork = Flag("no-network", nil, "refuse every http(s) input before any request")
    static let allowCredentials = Flag("allow-credentials", nil, "fetch URLs that carry user:password@ (never printed either way)")
}
