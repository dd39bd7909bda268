import Foundation

/// One unit of work: an input and where its output goes.
public struct BatchJob: Sendable, Equatable {
    public var input: String
    public var output: String
    /// Set when the job must not run (two inputs writing one output, an output replacing an input).
    public var problem: String?

    public init(input: String, output: String, problem: String? = nil) {
        self.input = input
        self.output = output
        self.problem = problem
    }
}

/// A path given by the user and, for files found under a `-r` directory, that directory.
public struct InputPath: Sendable, Equatable {
    public var path: String
    public var root: String?

    public init(path: String, root: String? = nil) {
        self.path = path
        self.root = root
    }
}

public enum BatchPlan {
    /// Decides every output before any work starts, so collisions fail for both inputs up front.
    public static func jobs(for inputs: [InputPath], format: OutputFormat, outputDirectory: String?, inPlace: Bool) -> [BatchJob] {
        // The same path named twice (`a.heic ./a.heic`, or a file and its directory with -r) is one job.
        // Symlinks stay separate jobs: they are separate names with separate outputs.
        var seen = Set<String>()
        let inputs = inputs.filter { seen.insert(OutputNaming.normalize($0.path)).inserted }
        let outputs = inputs.map { input in
            inPlace ? input.path
                : OutputNaming.outputPath(for: input.path, format: format, directory: outputDirectory, relativeTo: input.root)
        }
        var problems = OutputNaming.conflicts(inputs: inputs.map(\.path), outputs: outputs)
        if inPlace {
            // In place, every output is its own input by design; only duplicates are a problem.
            problems = problems.filter { OutputNaming.normalize(outputs[$0.key]) != OutputNaming.normalize(inputs[$0.key].path) }
        }
        return inputs.indices.map { BatchJob(input: inputs[$0].path, output: outputs[$0], problem: problems[$0]) }
    }

    /// Expands directory arguments (with `recursive`) into the image files below them, sorted.
    /// Files found in directories that do not sniff as images are skipped silently; a directory without
    /// `recursive` is an error for that argument.
    /// - Parameter excluding: a directory never to descend into (the output directory, so a second
    ///   run of `-r . -o out` does not take its own outputs as inputs).
    public static func expand(_ arguments: [String], recursive: Bool, excluding: String? = nil) -> (inputs: [InputPath], errors: [(String, String)]) {
        let excluded = excluding.map(canonicalPath)
        var inputs: [InputPath] = [], errors: [(String, String)] = []
        for argument in arguments {
            guard RawPath.status(argument) != nil else {
                errors.append((argument, "no such file or directory"))
                continue
            }
            guard RawPath.isDirectory(argument) else {
                inputs.append(InputPath(path: argument))
                continue
            }
            guard recursive else {
                errors.append((argument, "is a directory; use -r to convert the images inside it"))
                continue
            }
            let root = argument.hasSuffix("/") && argument.count > 1 ? String(argument.dropLast()) : argument
            var found: [String] = [], visited: Set<String> = [canonicalPath(root)]
            walk(root, excluding: excluded, visited: &visited, into: &found)
            inputs += found.sorted().map { InputPath(path: $0, root: root) }
        }
        return (inputs, errors)
    }

    /// The image files below `directory`, skipping `excluded` (canonical), directories already seen
    /// (symlink loops), and our own temporary files (`.NAME.imgprep-XXXXXX`) of a run still going on.
    private static func walk(_ directory: String, excluding excluded: String?, visited: inout Set<String>,
                             into found: inout [String]) {
        for name in RawPath.names(in: directory) ?? [] {
            let path = directory + "/" + name
            if name.hasPrefix("."), name.contains(".imgprep-") { continue }
            if RawPath.isDirectory(path) {
                let canonical = canonicalPath(path)
                if canonical == excluded || !visited.insert(canonical).inserted { continue }
                walk(path, excluding: excluded, visited: &visited, into: &found)
            } else if looksLikeImage(path) {
                found.append(path)
            }
        }
    }

    /// The path with symlinks resolved when it exists, else just normalised (`out` and `./out/` match).
    static func canonicalPath(_ path: String) -> String {
        RawPath.resolved(path) ?? OutputNaming.normalize(path)
    }

    /// Reads just enough of a file to sniff it.
    static func looksLikeImage(_ path: String) -> Bool {
        guard let head = try? InputFile.head(path, count: 64) else { return false }
        switch FormatSniffer.sniff(head) {
        case .success: return true
        case .failure(let error): return error.kind == .unsupported  // an image we cannot read deserves a line
        }
    }
}
