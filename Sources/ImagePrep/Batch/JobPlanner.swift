/// Names each input's output as the inputs arrive, and refuses what cannot be written, without waiting
/// for the end of the list:
/// - the same file named twice (`a.heic ./a.heic $PWD/a.heic`, a file and its directory with -r) for the
///   same output is one job: paths are compared as the files they lead to (see `PathIdentity`);
/// - an output claimed by an earlier input of the run goes to that input only (the first claimant wins,
///   later ones fail with a line naming it);
/// - an output may not replace its own input, nor any input the run has seen or sees in the same group
///   (a directory's files and an argument list arrive as groups), nor may an input be one that an earlier
///   output of the run replaces.
/// Paths are remembered as 16-byte digests (at most about 250 bytes a file with the sets' overhead), and
/// only the last few thousand claimants by name, so a list of a million costs about 250 MB at worst, not
/// the gigabytes its names would.
public struct JobPlanner: Sendable {
    public let format: OutputFormat
    public let outputDirectory: String?
    /// The one output's name (`-o out.jpg` with a single input), instead of a name derived from the input's.
    public let outputFile: String?
    public let inPlace: Bool
    /// `--to auto`: the formats each output may be written in (every name they give is claimed).
    public let autoFormats: [OutputFormat]?
    /// A web image set: every name its variants may get is checked and claimed.
    public let set: SetOutputs?
    /// `compress` without `--to`: the format a graphic may be written in instead (GraphicRoute). An input
    /// whose name in it is free gets both names claimed; one whose name would be its own (no -o DIR) or
    /// another's goes the photo's way, and its job says so (`outputFormats` nil).
    public let graphicFormat: OutputFormat?

    private var inputs = Set<PathDigest>()         // every input seen or announced, as file and as entry
    private var planned = Set<PathDigest>()        // (input file, output entry) of every job planned
    private var claimed: [PathDigest: Int] = [:]   // output → the claimant's position in the run
    private var recent: [Int: String] = [:]        // position → input path, for the last `recall` claims
    private var claims = 0
    private var identity = PathIdentity()
    /// The identities of the last group announced, so planning it does not work them out again. Keyed
    /// by bytes: String equality would take `café` NFC and NFD for one path.
    private var announced: [[UInt8]: Identities] = [:]

    private struct Identities {
        var file: PathDigest, entry: PathDigest
    }
    private static let recall = 4096

    public init(format: OutputFormat, outputDirectory: String?, outputFile: String? = nil, inPlace: Bool,
                autoFormats: [OutputFormat]? = nil, set: SetOutputs? = nil, graphicFormat: OutputFormat? = nil) {
        self.format = format
        self.graphicFormat = autoFormats == nil && set == nil && outputFile == nil && !inPlace ? graphicFormat : nil
        self.set = set
        self.autoFormats = autoFormats
        self.outputDirectory = outputDirectory
        self.outputFile = outputFile
        self.inPlace = inPlace
    }

    /// Registers a group of paths before any of them is planned, so an output that would replace one of
    /// them is refused even when its input comes first in the group.
    public mutating func expect(_ group: [InputPath]) {
        announced.removeAll(keepingCapacity: true)
        for input in group {
            let identities = identities(of: input.path)
            inputs.insert(identities.file)
            inputs.insert(identities.entry)
            announced[RawPath.bytes(input.path)] = identities
        }
    }

    private mutating func identities(of path: String) -> Identities {
        let (file, entry) = identity.fileAndEntry(path)
        let entryDigest = PathDigest(normalized: entry)
        return Identities(file: file.utf8.elementsEqual(entry.utf8) ? entryDigest : PathDigest(normalized: file), entry: entryDigest)
    }

    /// The job for `input`, or nil when the same file was planned already for the same output (it is one job).
    public mutating func job(for input: InputPath) -> BatchJob? {
        // A URL is itself: two URLs are one input when they are the same text.
        let identities = input.remote.map { remote in
            let digest = PathDigest(normalized: "url:" + remote.source)
            return Identities(file: digest, entry: digest)
        } ?? announced.removeValue(forKey: RawPath.bytes(input.path)) ?? identities(of: input.path)
        let (inputFile, inputEntry) = (identities.file, identities.entry)
        inputs.insert(inputFile)
        inputs.insert(inputEntry)
        if inPlace, input.remote != nil {
            return BatchJob(input: input.path, output: "", problem: ImagePrepError(.output, "--in-place cannot replace a URL; use -o DIR", stage: .write))
        }
        if inPlace {
            guard planned.insert(PathDigest(pair: inputFile, inputFile)).inserted else { return nil }
            claim(inputFile, by: input.path)
            // A link is kept and its target replaced: the file is what the user meant to compress.
            let output = PathIdentity.isSymbolicLink(input.path) ? identity.fileAndEntry(input.path).file : input.path
            return BatchJob(input: input.path, output: output)
        }
        let setNames = set?.names(for: input)
        let output = outputFile ?? setNames?.first
            ?? OutputNaming.outputPath(for: input.remote?.outputName ?? input.path, format: autoFormats?.first ?? format,
                                       directory: outputDirectory, relativeTo: input.root)
        var formats = autoFormats
        if let graphicFormat, graphicFormat != format {
            let name = OutputNaming.outputPath(for: input.remote?.outputName ?? input.path, format: graphicFormat,
                                               directory: outputDirectory, relativeTo: input.root)
            let entry = PathDigest(normalized: identity.entry(name))
            if entry != inputFile, entry != inputEntry, claimed[entry] == nil, !inputs.contains(entry) { formats = [format, graphicFormat] }
        }
        var job = BatchJob(input: input.path, output: output, outputFormats: formats, setOutputs: setNames?.filter(SetOutputs.isKnown))
        job.remote = input.remote
        job.root = input.root
        // With --to auto every name the output may get is checked and claimed: the format is known only later.
        let outputs = job.possibleOutputs.map { (name: $0, entry: PathDigest(normalized: identity.entry($0))) }
        guard planned.insert(PathDigest(pair: inputFile, PathDigest(normalized: identity.entry(output)))).inserted else { return nil }
        func refused(_ reason: String) -> BatchJob {
            var job = job
            job.problem = ImagePrepError(.output, reason, stage: .write)
            return job
        }
        // A name from the input that leads out of the output folder (a file named `...heic` under
        // `--name {name}/{width}.{ext}`): that input fails; nothing is claimed for it.
        if let set, let name = set.naming.escape(input: input.remote?.outputName ?? input.path, root: input.root,
                                                 format: set.formats.first ?? format) {
            return refused("--name \(set.naming.template) names its output \(name), which leaves the output folder; rename the file")
        }
        if let position = claimed[inputFile] ?? claimed[inputEntry] {
            return refused("\(input.path) was written by this run as the output of \(name(position)); it is not read again")
        }
        let choosing = autoFormats == nil ? "" : " if --to auto chose it"
        for (name, entry) in outputs {
            if entry == inputFile || entry == inputEntry {
                return refused("the output \(name) would replace its own input\(choosing); use -o DIR (or --in-place with compress)")
            }
            if let position = claimed[entry] {
                return refused("\(name) is written from \(self.name(position)) already; rename one or use separate output directories")
            }
            if inputs.contains(entry) {
                return refused("the output \(name) would replace another input\(choosing)")
            }
        }
        for (_, entry) in outputs { claim(entry, by: input.path) }
        return job
    }

    /// Claims `path` for a file the run writes besides its outputs (`--manifest`), named `what` in
    /// refusals: an output or an input that is that file fails.
    public mutating func reserve(_ path: String, for what: String) {
        claim(PathDigest(normalized: identity.entry(path)), by: what)
        claim(PathDigest(normalized: identity.fileAndEntry(path).file), by: what)
    }

    /// Counts `path` as an input (`--files-from FILE`): no output may replace it.
    public mutating func protect(_ path: String) {
        let identities = identities(of: path)
        inputs.insert(identities.file)
        inputs.insert(identities.entry)
    }

    private mutating func claim(_ output: PathDigest, by input: String) {
        claims += 1
        claimed[output] = claims
        recent[claims] = input
        recent[claims - Self.recall] = nil
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
        self.init(normalized: OutputNaming.normalize(path))
    }

    /// A path `OutputNaming.normalize` has been through already.
    init(normalized path: String) {
        self.init(digest: SHA256.hash(RawPath.bytes(path)))
    }

    /// Two paths together: a job's input and output.
    init(pair first: PathDigest, _ second: PathDigest) {
        self.init(digest: SHA256.hash([first.high, first.low, second.high, second.low].flatMap { value in
            (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
        }))
    }

    private init(digest: [UInt8]) {
        high = digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = digest[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
