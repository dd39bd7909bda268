/// `file:` URLs: `file:///path`, `file://localhost/path` and `file:/path`, percent-decoded to the path
/// they name. Any other host is refused: imgprep reads local files only.
enum FileURL {
    static func path(of url: String) -> Result<String, ImagePrepError> {
        var rest = Array(url.utf8.dropFirst("file:".utf8.count))
        if rest.starts(with: "//".utf8) {
            rest.removeFirst(2)
            let hostEnd = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.count
            let host = String(decoding: rest[..<hostEnd], as: UTF8.self)
            guard host.isEmpty || host.lowercased() == "localhost" else {
                return .failure(ImagePrepError(.io, "a file: URL names a host (\(host)); imgprep reads local files only (file:///path)"))
            }
            rest.removeFirst(hostEnd)
        }
        // A query or fragment is not part of the path (a `#` or `?` in a name is written %23 or %3F).
        rest = Array(rest.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        guard rest.first == UInt8(ascii: "/") else {
            return .failure(ImagePrepError(.io, "a file: URL needs an absolute path (file:///path)"))
        }
        guard let bytes = PercentEncoding.decode(rest) else {
            return .failure(ImagePrepError(.io, "a file: URL with a % not followed by two hex digits"))
        }
        guard !bytes.contains(0) else { return .failure(ImagePrepError(.io, "a file: URL whose path holds %00")) }
        return .success(RawPath.decode(bytes))
    }
}
