/// Names each input's output as the inputs arrive, and refuses what cannot be written, without waiting
/// for the end of the list:
/// - the same path named twice (`a.heic ./a.heic`, a file and its directory with -r) is one job;
/// - an output claimed by an earlier input of the run goes to that input only (the first claimant wins,
///   later ones fail with a line naming it);
/// - an output may not replace its own input, nor any input the run has seen or sees in the same group
///   (a directory's files and an argument list arrive as groups), nor may an input be one that an earlier
///   output of the run replaces.
/// Paths are remembered as 16-byte digests (at most about 150 bytes a file with the dictionaries'
/// overhead), and only the last few thousand claimants by name, so a list of a million costs about
/// 150 MB at worst, not the gigabytes its names would.
public struct JobPlanner: Sendable {
    public let format: OutputFormat
    public let outputDirectory: String?
    /// The one output's name (`-o out.jpg` with a single input), instead of a name derived from the input's.
    public let outputFile: String?
    public let inPlace: Bool

    private var inputs: [PathDigest: Bool] = [:]   // every input seen or announced → planned yet
    private var claimed: [PathDigest: Int] = [:]   // output → the claimant's position in the run
    private var recent: [Int: String] = [:]        // position → input path, for the last `recall` claims
    private var planned = 0
    private static let recall = 4096

    public init(format: OutputFormat, outputDirectory: String?, outputFile: String? = nil, inPlace: Bool) {
        self.format = format
        self.outputDirectory = outputDirectory
        self.outputFile = outputFile
        self.inPlace = inPlace
    }

    /// Registers a group of paths before any of them is planned, so an output that would replace one of
    /// them is refused even when its input comes first in the group.
    public mutating func expect(_ group: [InputPath]) {
        for input in group where inputs[PathDigest(input.path)] == nil { inputs[PathDigest(input.path)] = false }
    }

    /// The job for `input`, or nil when the same path was planned already (it is one job).
    public mutating func job(for input: InputPath) -> BatchJob? {
        let inputDigest = PathDigest(input.path)
        guard inputs[inputDigest] != true else { return nil }
        inputs[inputDigest] = true
        if inPlace {
            claim(inputDigest, by: input.path)
            return BatchJob(input: input.path, output: input.path)
        }
        let output = outputFile
            ?? OutputNaming.outputPath(for: input.path, format: format, directory: outputDirectory, relativeTo: input.root)
        let outputDigest = PathDigest(output)
        func refused(_ reason: String) -> BatchJob {
            BatchJob(input: input.path, output: output, problem: ImagePrepError(.output, reason))
        }
        if let position = claimed[inputDigest] {
            return refused("\(input.path) was written by this run as the output of \(name(position)); it is not read again")
        }
        if outputDigest == inputDigest {
            return refused("the output \(output) would replace its own input; use -o DIR (or --in-place with compress)")
        }
        if let position = claimed[outputDigest] {
            return refused("\(output) is written from \(name(position)) already; rename one or use separate output directories")
        }
        if inputs[outputDigest] != nil {
            return refused("the output \(output) would replace another input")
        }
        claim(outputDigest, by: input.path)
        return BatchJob(input: input.path, output: output)
    }

    private mutating func claim(_ output: PathDigest, by input: String) {
        planned += 1
        claimed[output] = planned
        recent[planned] = input
        recent[planned - Self.recall] = nil
    }

    /// An earlier input by name, or by its place in the run when it is too far back to be remembered.
    private func name(_ position: Int) -> String {
        recent[position] ?? "an earlier input (the \(position)\(Self.ordinalSuffix(position)) of this run)"
    }

    private static func ordinalSuffix(_ n: Int) -> String {
        if (11...13).contains(n % 100) { return "th" }
        return [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
    }
}

/// A path after normalising `.`, `..` and repeated slashes, as 16 bytes of its SHA-256.
struct PathDigest: Hashable, Sendable {
    let high: UInt64, low: UInt64

    init(_ path: String) {
        let digest = SHA256.hash(RawPath.bytes(OutputNaming.normalize(path)))
        high = digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = digest[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
