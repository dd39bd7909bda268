import Foundation
import ImagePrep

struct InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info",
        abstract: "show what an image is and what it holds: format, brands, size, depth, alpha, orientation, colour, EXIF/GPS, images inside",
        usage: "imgprep info [--json] FILE...",
        options: [Flag.json.described("print one JSON object per file on standard output"), Flag.help],
        examples: ["imgprep info IMG_0001.heic", "imgprep info --json photos/*.jpg", "curl -s https://example.com/a.jpg | imgprep info -"],
        discussion: "Each FILE is a path, an http(s) or data: URL, or - for the picture on standard input.",
        exitStatus: ExitStatus.info)

    let paths: [String]
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        guard !arguments.positionals.isEmpty else {
            throw UsageError(description: "info needs at least one file; see 'imgprep info --help'")
        }
        paths = arguments.positionals
        try StandardInput.check(paths, command: "info")
        json = arguments[.json]
    }

    func run() async -> Int32 {
        // As a batch does: SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the listing (the worker in flight is
        // killed) and the run exits 128 + the signal's number.
        let signals = SignalWatcher()
        let lastLine = SignalWatcher.Claim()
        var failed = false
        var fetch = FetchOptions()  // URLs as a batch's defaults fetch them (no HTTP cache)
        fetch.timeout = 600
        // Files are read by libheif and libexif in a worker process, as in a batch: a file that crashes
        // or hangs them costs its own line only. (Without an HTTP cache directory this cannot fail.)
        guard let inspection = try? Inspection(isolation: WorkerCommand.isolation, fetch: fetch) else { return 2 }
        signals.onSignal({ inspection.cancel() }, lastWords: { signal in
            guard lastLine.take() else { return false }
            StandardStream.error.write("imgprep: interrupted by \(SignalWatcher.name(signal))\n")
            return true
        })
        inputs: for (index, argument) in paths.enumerated() {
            if inspection.isCancelled { break }
            var path = argument
            let result: Result<ImageDescription, ImagePrepError>
            if argument == "-" {
                do {
                    result = await inspection.describe(bytes: try StandardInput.readFileOr("-"))
                } catch {
                    result = .failure(ImagePrepError.failed(at: .sniff, error, otherwise: .io))
                }
            } else {
                (path, result) = await inspection.describe(argument)
            }
            switch result {
            case .success(let description):
                if json {
                    JSONLine.print(object(path, description))
                } else {
                    StandardStream.output.write((index > 0 ? "\n" : "") + render(path, description))
                }
            case .failure(let failure):
                if inspection.isCancelled { break inputs }
                failed = true
                let stage = failure.stage ?? .sniff
                if json {
                    JSONLine.print(JSONLine.naming(path, as: "input", in: [
                        "status": "failed", "error": failure.description, "error_kind": failure.kind.rawValue,
                        "error_stage": stage.rawValue,
                    ]))
                } else {
                    StandardStream.error.write(TerminalText.line("imgprep: \(path): \(stage.rawValue): \(failure)") + "\n")
                }
            }
        }
        if inspection.isCancelled {
            // The signal's forced end may be saying it already: let it end the process.
            guard lastLine.take() else { while true { sleep(1) } }
            StandardStream.error.write("imgprep: interrupted by \(SignalWatcher.name(signals.received))\n")
            return 128 + signals.received
        }
        return failed ? 1 : 0
    }

    private func render(_ path: String, _ d: ImageDescription) -> String {
        var lines = ["\(path):"]
        func add(_ label: String, _ value: String) { lines.append("  " + (label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value) }
        add("format", d.format + (d.brands.isEmpty ? "" : " (brands \(d.brands.map { "'\($0)'" }.joined(separator: ", ")))"))
        add("size", "\(d.width)x\(d.height)" + (d.storedSize.map { " upright (stored \($0.width)x\($0.height))" } ?? ""))
        add("bit depth", "\(d.bitDepth)")
        add("alpha", d.hasAlpha ? "yes" : "no")
        add("orientation", d.exifOrientation.map { "EXIF \($0)" } ?? "no EXIF Orientation")
        add("colour", d.colour)
        add("exif", d.exifBytes > 0 ? "\(d.exifBytes) bytes" : "none")
        func exif(_ label: String, _ value: String) { lines.append("    " + (label + ":").padding(toLength: 20, withPad: " ", startingAt: 0) + value) }
        // A whole position reads as decimal degrees on one line; the raw fields only when it is not whole.
        let positionLabels: Set = ["GPSLatitudeRef", "GPSLatitude", "GPSLongitudeRef", "GPSLongitude"]
        var positionShown = false
        for field in d.exifFields {
            if let position = d.gpsPosition, positionLabels.contains(field.label) {
                if !positionShown { exif("GPSPosition", position.text) }
                positionShown = true
                continue
            }
            exif(field.label, field.value)
        }
        add("xmp", d.xmpBytes > 0 ? "\(d.xmpBytes) bytes" : "none")
        add("iptc", d.iptcBytes > 0 ? "\(d.iptcBytes) bytes" : "none")
        for comment in d.comments { add("comment", comment.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if let animation = d.animation { add("animation", animation.summary) }
        if !d.contents.isEmpty {
            add("contents", d.contents[0])
            for line in d.contents.dropFirst() { lines.append(String(repeating: " ", count: 16) + line) }
        }
        if let map = d.gainMap { add("gain map", map.text) }
        for note in d.notes { add("note", note) }
        return lines.map(TerminalText.line).joined(separator: "\n") + "\n"
    }

    /// The same as `render`, as one JSON object: numbers as numbers, absent things as null.
    private func object(_ path: String, _ d: ImageDescription) -> [String: Any] {
        let null = NSNull()
        return JSONLine.naming(path, as: "input", in: [
            "status": "ok",
            "format": d.format, "brands": d.brands, "width": d.width, "height": d.height,
            "stored_width": d.storedSize?.width ?? null, "stored_height": d.storedSize?.height ?? null,
            "bit_depth": d.bitDepth, "alpha": d.hasAlpha, "orientation": d.exifOrientation ?? null,
            "colour": d.colour,
            "icc": d.iccProfile.map { ["name": $0.name, "bytes": $0.bytes] as [String: Any] } ?? null,
            "nclx": d.nclx.map { ["primaries": $0.primaries, "transfer": $0.transfer, "matrix": $0.matrix,
                                  "full_range": $0.fullRange, "name": $0.name] as [String: Any] } ?? null,
            "exif_bytes": d.exifBytes,
            "exif": Dictionary(d.exifFields.map { ($0.label, $0.value) }, uniquingKeysWith: { first, _ in first }),
            "gps": d.gpsPosition.map { ["latitude": $0.latitude, "longitude": $0.longitude, "text": $0.text] as [String: Any] } ?? null,
            "xmp_bytes": d.xmpBytes, "iptc_bytes": d.iptcBytes, "comments": d.comments,
            "contents": d.contents, "notes": d.notes,
            "animation": d.animation.map { ["frames": $0.frames, "duration_ms": $0.totalDuration, "plays": $0.plays,
                                            "screen_width": $0.screen.width, "screen_height": $0.screen.height] as [String: Any] } ?? null,
            "gain_map": d.gainMap.map { map in
                ["kind": map.kind, "width": map.width ?? null, "height": map.height ?? null, "bytes": map.bytes ?? null,
                 "headroom": map.headroom ?? null, "headroom_stops": map.headroomStops ?? null,
                 "channels": map.channels ?? null, "per_channel_values": map.perChannelValues] as [String: Any]
            } ?? null,
        ])
    }
}
