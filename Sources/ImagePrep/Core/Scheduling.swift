/// How one file's work is spread over the machine: decided by the batch from the cores and the files
/// in flight, passed beside `ConversionSettings` and never part of them, because it may change how
/// fast a file is prepared but never its bytes (the cache key and the output depend on the settings).
public struct Scheduling: Sendable, Codable, Equatable {
    /// Threads one picture may use: libheif's tile decoding, resizing and colour conversion in bands,
    /// libwebp's and x265's own threads, and budget trials run side by side (AVIF).
    public var threads: Int

    public init(threads: Int = 1) { self.threads = max(1, threads) }

    /// `IMGPREP_THREADS_PER_IMAGE=N` overrides what the batch decides, so tests can show that the bytes
    /// do not depend on it (and a user can pin it); ignored unless it is a number from 1 to 256.
    public static func override(from environment: [String: String]) -> Int? {
        environment["IMGPREP_THREADS_PER_IMAGE"].flatMap { Int($0) }.flatMap { (1...256).contains($0) ? $0 : nil }
    }
}
