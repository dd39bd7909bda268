import Foundation
import ImagePrep

/// `imgprep manifest merge A.json B.json … [-o OUT]`: shards' manifests joined into the one a single run
/// writes. Reading, checking and joining are the library's (Manifest); this reads the files and writes the result.
struct ManifestCommand: Command {
    static let spec = CommandSpec(
        name: "manifest",
        abstract: "join the manifests that shards wrote (--manifest) into the one a single run writes",
        usage: "imgprep manifest merge [-o FILE] MANIFEST...",
        options: [Option.manifestOutput, Flag.help],
        examples: ["imgprep manifest merge -o site/images.json shard-1.json shard-2.json shard-3.json"],
        discussion: """
        A source listed in several manifests must have the same entry in each (shards of one run); different \
        entries are an error and nothing is written. The result has the same bytes as the manifest of one run \
        over all the sources.
        """,
        exitStatus: ExitStatus.manifest)

    let files: [String]
    let output: String?

    init(_ arguments: ParsedArguments) throws {
        guard let action = arguments.positionals.first else {
            throw UsageError(description: "manifest needs an action: 'imgprep manifest merge MANIFEST...'; see 'imgprep manifest --help'")
        }
        guard action == "merge" else {
            throw UsageError(description: "unknown manifest action '\(action)'; the one there is: merge; see 'imgprep manifest --help'")
        }
        files = Array(arguments.positionals.dropFirst())
        guard !files.isEmpty else {
            throw UsageError(description: "manifest merge needs at least one manifest; see 'imgprep manifest --help'")
        }
        output = arguments[.manifestOutput]
    }

    func run() async -> Int32 {
        var shards: [(name: String, manifest: Manifest)] = []
        for file in files {
            do {
                shards.append((file, try Manifest.decode(try InputFile.read(file, maxBytes: Manifest.maxBytes))))
            } catch {
                report(file, error)
                return 1
            }
        }
        let merged: Manifest
        do {
            merged = try Manifest.merge(named: shards)
        } catch {
            StandardStream.error.write(TerminalText.line("imgprep: \(error)") + "\n")
            return 1
        }
        guard let output else {
            StandardStream.output.write(merged.encoded())
            return 0
        }
        do {
            try AtomicWriter.write(merged.encoded(), to: output)
        } catch {
            report(output, error)
            return 1
        }
        return 0
    }

    private func report(_ file: String, _ error: any Error) {
        StandardStream.error.write(TerminalText.line("imgprep: \(file): \(error)") + "\n")
    }
}

extension Option<String> {
    static let manifestOutput = Option("output", "o", "FILE", "write the merged manifest to FILE (atomically) instead of standard output", .text)
}

extension ExitStatus {
    static let manifest = [(0, "the manifests were merged"), (1, "a manifest could not be read or written, or two disagree"), (2, "usage error")]
}
