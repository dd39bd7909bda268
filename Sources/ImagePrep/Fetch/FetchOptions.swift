/// How the fetch stage may reach http(s) sources. None of it changes output bytes: an output depends
/// only on the bytes downloaded.
public struct FetchOptions: Sendable {
    /// `--no-network`: every http(s) input fails before any request.
    public var noNetwork = false
    /// `--allow-credentials`: URLs with `user:password@` are fetched (never printed either way).
    public var allowCredentials = false
    /// `--cacert FILE`: certificates trusted besides the system's store.
    public var caFile: String?
    /// `--http-cache DIR`, or `http/` inside `--cache`; nil keeps no responses.
    public var httpCacheDirectory: String?
    /// The whole download (`--timeout`); nil for none.
    public var timeout: Double?
    public static let connectTimeout = 10.0
    /// `--max-input-size`, enforced while the body streams.
    public var maxBytes = InputFile.defaultMaxBytes

    public init() {}

    public static var userAgent: String { "imgprep/\(CodecVersions.imgprep)" }
}
