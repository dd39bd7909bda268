/// The step of a file's way through imgprep, named in every error that ends the file
/// (`imgprep: NAME: decode: ...`, `"error_stage"` in JSON) and reported by a worker as it starts each
/// step, so a death or a timeout can say where it happened. Where each part of the work belongs is in
/// docs/behaviour.md ("Error stages").
public enum PipelineStage: String, Sendable, Codable, CaseIterable {
    /// Bringing a URL or data: URI input into a file (the download, the HTTP cache).
    case fetch
    /// Reading the input file (missing, not a regular file, over --max-input-size).
    case read
    /// Recognising the input's format.
    case sniff
    /// Headers, the pixel limits and decoding (the JPEG and WebP shortcuts too).
    case decode
    /// Applying the EXIF Orientation.
    case orient
    case resize
    /// `--color srgb`, and flattening alpha for outputs without it.
    case colour
    /// Metadata for the output, encoding and the budget search.
    case encode
    /// Naming and writing the output.
    case write
}
