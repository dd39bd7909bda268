/// The JPEG XL writer's defaults, set by measurement (docs/formats.md, JPEG XL: how they were chosen).
public enum JXLDefaults {
    /// `--quality` when none is given: the quality whose SSIMULACRA 2 matches JPEG at its default (85) on the
    /// median corpus photo (85.4 over 12; the mean score at 86 is 82.3 against JPEG's 82.6), by
    /// scripts/jxl-defaults.sh. cjxl 0.7's own default, distance 1.0, is quality 90.
    public static let quality = 86
    /// libjxl's effort, 1 (fastest) ... 9 (smallest), for lossy encodes: at quality 86, effort 5 writes 1.4%
    /// fewer bytes than cjxl's default 7 at 0.2 lower SSIMULACRA 2 (the same bytes for the same score) in
    /// less than half its CPU time; 3 and 4 cost 3.4% more bytes, 8 four times the time (jxl-defaults.sh).
    public static let effort = 5
    /// Memory one encode needs per pixel beyond the decoded picture (scripts/peak-rss.py, see MemoryEstimate):
    /// a 6 MP PNG to JPEG XL peaked at 586 MB, lossy and lossless alike, against 98 MB to PNG: about 80.
    static let workingBytesPerPixel = 80
}

extension JXLDefaults {
    /// d log(bytes) / d log(distance), as SizeModel defines it: least-squares fits of log bytes on log distance,
    /// effort 7, qualities 30, 50, 70, 85, 95, four corpus photos at 1024 pixels (pug, samsung-one-ui-6,
    /// oneplus-heic, recurser Landscape_0): -0.75, -0.78, -0.82, -1.19; the median of those.
    static let typicalSlope = -0.8
    /// Bytes of a whole picture per byte of its probe mosaic, per unit of area (ProbeMosaic): not measured yet
    /// (1 assumes none of the crops' border cost); the budget search measures each picture's own level anyway.
    static let probeRatio = 1.0
}
