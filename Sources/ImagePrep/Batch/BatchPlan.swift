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
        let fm = FileManager.default
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                errors.append((argument, "no such file or directory"))
                continue
            }
            guard isDirectory.boolValue else {
                inputs.append(InputPath(path: argument))
                continue
            }
            guard recursive else {
                errors.append((argument, "is a directory; use -r to convert the images inside it"))
                continue
            }
            let root = argument.hasSuffix("/") && argument.count > 1 ? String(argument.dropLast()) : argument
            guard let walker = fm.enumerator(atPath: root) else { continue }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                let path = root + "/" + relative
                if let excluded, canonicalPath(path) == excluded {
                    walker.skipDescendants()
                    continue
                }
                // Our own temporary files (`.NAME.imgprep-XXXXXX`) from a run still going on.
                if (relative as NSString).lastPathComponent.hasPrefix("."), relative.contains(".imgprep-") { continue }
                var isDir: ObjCBool = false
                if fm.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue, looksLikeImage(path) {
                    found.append(path)
                }
            }
            inputs += found.sorted().map { InputPath(path: $0, root: root) }
        }
        return (inputs, errors)
    }

    /// The path with symlinks resolved when it exists, else just normalised (`out` and `./out/` match).
    static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return OutputNaming.normalize(path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reads just enough of a file to sniff it.
    static func looksLikeImage(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        switch FormatSniffer.sniff(head) {
        case .success: return true
        case .failure(let error): return error.kind == .unsupported  // an image we cannot read deserves a line
        }
    }
}
