/// What an argument or a list line names. A path is read as it is; `file:` URLs become their path;
/// `http(s)://` URLs and `data:` URIs are inputs the fetch stage (`FetchStage`) turns into a file first.
/// The schemes are recognised before the file system is asked: `./data:x.jpg` names such a file.
public enum InputSource: Sendable, Equatable {
    case path(String)
    case remote(RemoteInput)
    /// A URL imgprep does not read (another scheme, a file:// URL naming another host, a malformed one).
    case refused(shown: String, reason: String)

    public static func classify(_ argument: String) -> InputSource {
        guard let scheme = scheme(of: argument) else { return .path(argument) }
        switch scheme {
        case "http", "https":
            return HTTPURL.parse(argument).map { .remote(RemoteInput(http: $0, source: argument)) }
                ?? .refused(shown: HTTPURL.withoutCredentials(argument), reason: "not a valid \(scheme) URL")
        case "data":
            switch DataURI.parse(argument) {
            case .success(let uri): return .remote(RemoteInput(data: uri, source: argument))
            case .failure(let problem): return .refused(shown: DataURI.shown(argument), reason: problem.description)
            }
        case "file":
            switch FileURL.path(of: argument) {
            case .success(let path): return .path(path)
            case .failure(let problem): return .refused(shown: argument, reason: problem.description)
            }
        default:
            return .refused(shown: HTTPURL.withoutCredentials(argument),
                            reason: "imgprep reads http, https, file and data URLs, not \(scheme):")
        }
    }

    /// The path a plain path or a file: URL names, nil for any other URL.
    public static func localPath(_ argument: String) -> String? {
        guard let scheme = scheme(of: argument) else { return argument }
        return scheme == "file" ? try? FileURL.path(of: argument).get() : nil  // a data: URI is not decoded here
    }

    /// The scheme, lowercased, when `argument` starts as a URL does: `data:` or `file:`, or any
    /// `scheme://`. Anything else (`photo.jpg`, `a:b.jpg`) is a path.
    static func scheme(of argument: String) -> String? {
        guard let colon = argument.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = argument.utf8[..<colon]
        guard let first = name.first, isLetter(first),
              name.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else { return nil }
        let scheme = String(decoding: name, as: UTF8.self).lowercased()
        if scheme == "data" || scheme == "file" { return scheme }
        return argument.utf8[colon...].starts(with: "://".utf8) ? scheme : nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
}

/// An input the fetch stage brings into a file: an http(s) URL or a data: URI.
public struct RemoteInput: Sendable, Equatable, Hashable {
    public enum Kind: Sendable { case http, data }
    public let kind: Kind
    /// As given, credentials included: what is fetched, never shown.
    public let source: String
    /// What progress lines, JSON and errors show: credentials removed, a data: URI shortened.
    public let shown: String
    /// The file name its output is named after (the URL's last path segment made safe, or `data-HASH`).
    public let outputName: String
    /// Whether the URL carries `user:password@`.
    public let hasCredentials: Bool

    init(http url: HTTPURL, source: String) {
        kind = .http
        self.source = source
        shown = url.shown
        outputName = url.outputName
        hasCredentials = url.hasCredentials
    }

    init(data uri: DataURI, source: String) {
        kind = .data
        self.source = source
        shown = DataURI.shown(source)
        outputName = uri.outputName
        hasCredentials = false
    }
}
