import Foundation
import ImagePrep

/// `imgprep compare ORIGINAL DISTORTED`: how alike two pictures look (SSIMULACRA 2). Decoding and scoring
/// are the library's (ImageComparison); this prints the result.
struct CompareCommand: Command {
    static let spec = CommandSpec(
        name: "compare",
        abstract: "score how alike two pictures look (SSIMULACRA 2: 100 identical, 90 visually lossless, 70 noticeable but not annoying)",
        usage: "imgprep compare [--json] ORIGINAL DISTORTED",
        options: [Flag.json.described("print {\"score\": ..., \"width\": ..., \"height\": ...} on standard output (and \"resized_from\" when ORIGINAL was resized)"), Flag.help],
        examples: ["imgprep compare IMG_0001.heic IMG_0001.jpg", "imgprep compare --json original.png candidate.webp"],
        discussion: """
        Both files are decoded upright (EXIF orientation applied), in any format imgprep reads, and compared in \
        their own colour profiles; a picture with transparency is scored on a dark and a light background and \
        the worse score counts. The score is printed with three decimals. Pictures are at least 8x8. When \
        DISTORTED is smaller or larger (an upload made with convert --max-dimension), ORIGINAL is resized to \
        its size with convert's resampler first, and a line on standard error says so; pictures of a \
        different aspect ratio are refused (exit 2). Either file may be - for standard input \
        (imgprep convert photo.heic -o - | imgprep compare photo.heic -).
        """,
        exitStatus: ExitStatus.compare)

    let original: String
    let distorted: String
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 2 else {
            throw UsageError(description: "compare needs two files, ORIGINAL and DISTORTED; see 'imgprep compare --help'")
        }
        original = arguments.positionals[0]
        distorted = arguments.positionals[1]
        try StandardInput.check([original, distorted], command: "compare")
        json = arguments[.json]
    }

    func run() async -> Int32 {
        @Sendable func load(_ path: String) -> Result<ImageComparison.Picture, ImagePrepError> {
            Result { try ImageComparison.decode(try StandardInput.readFileOr(path)) }
                .mapError { ImagePrepError.failed(at: .decode, $0, otherwise: .io) }
        }
        // The two decodes side by side, then the score on every core (it uses two at most). As one after
        // the other would: the original's failure is the one reported when both fail.
        async let first = load(original)
        async let second = load(distorted)
        let loaded = await [(original, first), (distorted, second)]
        var pictures: [ImageComparison.Picture] = []
        for (path, result) in loaded {
            switch result {
            case .success(let picture): pictures.append(picture)
            case .failure(let failure):
                StandardStream.error.write(TerminalText.line("imgprep: \(path): \(failure.stage ?? .decode): \(failure)") + "\n")
                return 1
            }
        }
        let given = pictures[0], b = pictures[1]
        do {
            let threads = ProcessInfo.processInfo.activeProcessorCount
            let a = try ImageComparison.matched(given, to: b, threads: threads)
            let resized = a.width != given.width || a.height != given.height
            if resized {
                StandardStream.error.write(TerminalText.line("imgprep: \(original): resized from \(given.width)x\(given.height) to \(a.width)x\(a.height) (upright, as convert --max-dimension does) to compare") + "\n")
            }
            let score = try ImageComparison.score(original: a, distorted: b, threads: threads)
            let rounded = (score * 1000).rounded() / 1000
            if json {
                var object: [String: Any] = ["score": rounded, "width": a.width, "height": a.height]
                if resized { object["resized_from"] = ["width": given.width, "height": given.height] }
                JSONLine.print(object)
            } else {
                StandardStream.output.write(String(format: "%.3f\n", rounded))
            }
            return 0
        } catch let error as ImageComparison.ShapesDiffer {
            StandardStream.error.write(TerminalText.line("imgprep: \(original) is \(error.original.width)x\(error.original.height) but \(distorted) is \(error.distorted.width)x\(error.distorted.height): a different aspect ratio, so compare cannot resize one to the other") + "\n")
            return 2
        } catch {
            StandardStream.error.write(TerminalText.line("imgprep: \(distorted): \(error)") + "\n")
            return 1
        }
    }
}
