import Foundation

/// `--name TEMPLATE`: where each variant of a set goes. `{name}` is the input's stem, `{width}`,
/// `{height}` and `{ext}` the variant's, `{hash}` the first 10 hex digits of the SHA-256 of its bytes and
/// `{dir}` the input's folder relative to its `-r` root. Without `{dir}`, names go in the mirrored folder
/// as single outputs do.
public struct SetNaming: Sendable, Equatable {
    public var template: String
    public var outputDirectory: String?

    public static let withWidths = "{name}-{width}.{ext}"
    public static let withoutWidths = "{name}.{ext}"
    static let fields: Set<String> = ["name", "width", "height", "ext", "hash", "dir"]

    public init(template: String, outputDirectory: String?) {
        self.template = template
        self.outputDirectory = outputDirectory
    }

    /// What is wrong with `template`, or nil: an unknown or unclosed field, or no name at all.
    public static func problem(in template: String) -> String? {
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { return "an unclosed { in \(template)" }
            let field = String(rest[rest.index(after: open)..<close])
            guard fields.contains(field) else {
                return "unknown field {\(field)} in \(template) (fields: {name} {width} {height} {ext} {hash} {dir})"
            }
            rest = rest[rest.index(after: close)...]
        }
        if template.isEmpty || template.hasSuffix("/") { return "--name \(template) gives no file name" }
        if climbsOut(template) {
            return "\(template) has a .. component, which would write outside the output folder; names stay inside it"
        }
        return nil
    }

    /// Whether a name (a template, or one rendered from it) has a `..` component: below the output
    /// folder that leads out of it, or over a file beside it.
    public static func climbsOut(_ name: String) -> Bool {
        name.split(separator: "/").contains("..")
    }

    /// The rendered name, relative to the output folder, when it would leave that folder (an input's
    /// stem is `..`: a file named `...heic`); nil when it stays inside.
    public func escape(input: String, root: String?, format: OutputFormat) -> String? {
        let name = relativeName(input: input, root: root, format: format, width: nil, height: nil, hash: nil)
        return Self.climbsOut(name) ? name : nil
    }

    /// Two variants of one input that the template names alike (`{width}` missing with several widths,
    /// `{ext}` with several formats): the name they share, or nil. `{hash}` tells all apart, `{height}` widths.
    public func duplicate(formats: [OutputFormat], widths: [Int?]) -> String? {
        if template.contains("{hash}") { return nil }
        var seen = Set<String>()
        for format in formats {
            for width in widths {
                let name = path(input: "IMG.heic", root: nil, format: format, width: width, height: width, hash: nil)
                if !seen.insert(name).inserted { return name }
            }
        }
        return nil
    }

    /// The output path; a field whose value is nil stays as written (`{hash}` before the bytes exist).
    public func path(input: String, root: String?, format: OutputFormat, width: Int?, height: Int?, hash: String?) -> String {
        let folder = RawPath.split(input).directory
        let base = outputDirectory ?? root ?? (folder.isEmpty ? "." : folder)
        let inFolder = relativeName(input: input, root: root, format: format, width: width, height: height, hash: hash)
        return base == "." && outputDirectory == nil ? inFolder : OutputNaming.join(base, inFolder)
    }

    /// The output's name below the output folder (or the input's folder, without -o).
    func relativeName(input: String, root: String?, format: OutputFormat, width: Int?, height: Int?, hash: String?) -> String {
        let file = RawPath.split(input).name
        let stem = file.lastIndex(of: ".").map { $0 == file.startIndex ? file : String(file[..<$0]) } ?? file
        var relative = ""
        if let root, let sub = OutputNaming.relativePath(of: input, under: root) {
            relative = RawPath.split(sub).directory
        }
        let values: [String: String?] = ["name": stem, "width": width.map(String.init), "height": height.map(String.init),
                                          "ext": format.fileExtension, "hash": hash, "dir": relative]
        var rendered = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            rendered += rest[..<open]
            let field = String(rest[rest.index(after: open)..<close])
            rendered += (values[field] ?? nil) ?? "{\(field)}"
            rest = rest[rest.index(after: close)...]
        }
        rendered += rest
        // An empty {dir} leaves no empty folder name behind.
        while rendered.contains("//") { rendered = rendered.replacingOccurrences(of: "//", with: "/") }
        while rendered.hasPrefix("/") { rendered.removeFirst() }
        return template.contains("{dir}") || relative.isEmpty ? rendered : OutputNaming.join(relative, rendered)
    }

    /// The first 10 hex digits of the SHA-256 of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> String {
        SHA256.hash(bytes).prefix(5).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
