/// Options shared by convert and compress: what to read, where to write, how to report.
enum SharedOptions {
    static let image: [OptionSpec] = [
        .value("output", "o", "DIR", "write outputs into DIR (created if missing) instead of next to each input; -o NAME.jpg (.png, .webp, .avif, .heic) writes one input to that file"),
        .value("max-dimension", nil, "N", "shrink so the long edge is exactly N pixels; never enlarges"),
        .value("background", nil, "COLOR", "colour under transparent pixels in JPEG output: white, black or #rrggbb", default: "white", values: ["white", "black"]),
        .flag("strip-location", nil, "remove where the photo was taken: EXIF GPS, XMP and IPTC location fields; keep everything else"),
        .flag("strip-gps", nil, "the same as --strip-location"),
        .flag("strip-metadata", nil, "drop EXIF, XMP, IPTC and comments; the ICC profile stays so colours do not change"),
        .value("color", nil, "MODE", "keep (the source's colour profile) or srgb (convert the pixels to sRGB, embed a compact sRGB profile)", default: "keep", values: ["keep", "srgb"]),
        .value("hdr", nil, "MODE", "keep (write an HDR photo's gain map as Ultra HDR JPEG; other formats warn and drop it) or drop (plain SDR)", default: "keep", values: ["keep", "drop"]),
        .value("subsampling", nil, "MODE", "JPEG, AVIF and HEIC chroma: auto (444 at quality 90+, 420 below and in budget searches), 420, 422 or 444", default: "auto", values: ["auto", "420", "422", "444"]),
        .flag("progressive", nil, "write progressive JPEG"),
        .value("max-pixels", nil, "N", "refuse inputs with more pixels than N before decoding", default: "300000000"),
        .value("max-input-size", nil, "SIZE", "refuse input files larger than SIZE before reading them (units as --max-bytes)", default: "1GB"),
    ]
    static let search: [OptionSpec] = [
        .value("min-quality", nil, "N", "lowest quality the search may use", default: "40"),
        .value("search", nil, "MODE", "binary (highest quality that fits) or step (from --quality down by --step)", default: "binary", values: ["binary", "step"]),
        .value("step", nil, "N", "quality decrement for --search step", default: "5"),
        .flag("no-downscale", nil, "fail instead of shrinking when even --min-quality is over the budget"),
    ]
    static let batch: [OptionSpec] = [
        .flag("recursive", "r", "convert the images found under directory arguments, mirroring the tree into -o DIR"),
        .value("files-from", nil, "FILE", "read input paths from FILE, one per line ('-' is standard input)"),
        .flag("null", "0", "paths from --files-from or standard input are separated by NUL (find -print0)"),
        .value("jobs", "j", "N", "convert N files at a time", default: "number of cores"),
        .value("memory-limit", nil, "SIZE", "start a file only while the memory estimated for the files in flight fits SIZE (a file bigger than SIZE runs alone)", default: "half the memory available"),
        .value("shard", nil, "K/N", "convert only shard K of N (counted from 1), or 'auto' to read it from GitLab, CircleCI, Buildkite, Slurm or Kubernetes (with IMGPREP_SHARD_COUNT)"),
        .value("cache", nil, "DIR", "reuse outputs filed by content in DIR and file new ones there (default: $IMGPREP_CACHE)"),
        .value("cache-max-size", nil, "SIZE", "keep the cache under SIZE, least recently used out first", default: "1GB"),
        .value("timeout", nil, "SECONDS", "give up on a file that takes longer (its worker is killed and replaced)", default: "600"),
        .flag("skip-existing", nil, "leave outputs that already exist alone"),
        .flag("update", nil, "leave outputs that are newer than their input alone"),
        .flag("dry-run", nil, "print what would be written; write nothing"),
        .flag("preserve-mtime", nil, "give each output its input's modification time"),
        .flag("fail-fast", nil, "stop at the first failure"),
        .flag("json", nil, "print one JSON object per file, then a summary object, on standard output"),
        .flag("quiet", nil, "print only errors"),
        .flag("verbose", "v", "print a line per file (input -> output, size, quality)"),
        .flag("help", "h", "show this help"),
    ]
}
