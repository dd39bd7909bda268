import Foundation
import ImagePrep

struct InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info",
        abstract: "show what an image is and what it holds: format, brands, size, depth, alpha, orientation, colour, EXIF/GPS, images inside",
        usage: "imgprep info FILE...",
        options: [.flag("help", "h", "show this help")],
        examples: ["imgprep info IMG_0001.heic"])

    let paths: [String]

    init(_ arguments: ParsedArguments) throws {
        guard !arguments.positionals.isEmpty else {
            throw UsageError(description: "info needs at least one file; see 'imgprep info --help'")
        }
        paths = arguments.positionals
    }

    func run() async -> Int32 {
        var failed = false
        for (index, path) in paths.enumerated() {
            do {
                let description = try ImageInspector.inspect(try InputFile.read(path))
                StandardStream.output.write((index > 0 ? "\n" : "") + render(path, description))
            } catch {
                failed = true
                StandardStream.error.write("imgprep: \(path): \(error)\n")
            }
        }
        return failed ? 1 : 0
    }

    private func render(_ path: String, _ d: ImageDescription) -> String {
        var lines = ["\(path):"]
        func add(_ label: String, _ value: String) { lines.append("  " + (label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value) }
        add("format", d.format + (d.brands.isEmpty ? "" : " (brands \(d.brands.map { "'\($0)'" }.joined(separator: ", ")))"))
        add("size", "\(d.width)x\(d.height)")
        add("bit depth", "\(d.bitDepth)")
        add("alpha", d.hasAlpha ? "yes" : "no")
        add("orientation", d.exifOrientation.map { "EXIF \($0)" } ?? "no EXIF Orientation")
        add("colour", d.colour)
        add("exif", d.exifBytes > 0 ? "\(d.exifBytes) bytes" : "none")
        for (label, value) in d.exifFields { lines.append("    " + (label + ":").padding(toLength: 20, withPad: " ", startingAt: 0) + value) }
        add("xmp", d.xmpBytes > 0 ? "\(d.xmpBytes) bytes" : "none")
        if !d.contents.isEmpty {
            add("contents", d.contents[0])
            for line in d.contents.dropFirst() { lines.append(String(repeating: " ", count: 16) + line) }
        }
        for note in d.notes { add("note", note) }
        return lines.joined(separator: "\n") + "\n"
    }
}
