import Foundation
import Synchronization

/// Something a batch learns about its inputs, in order.
enum InputEvent: Sendable {
    /// Paths known together: one argument, one directory's image files, or the paths of one read of a
    /// list. The planner sees each group whole before any of its files starts.
    case inputs([InputPath])
    /// A path that cannot be an input (missing, a directory without -r), with the reason.
    case unusable(path: String, reason: String, stage: PipelineStage = .read)
}

/// The jobs of a batch as they become known: the arguments first (directories walked one at a time
/// with -r; a short argument list starts with its largest pictures, see `LargestFirst`), then the paths of a list as they arrive on a pipe or from a file, each named and checked
/// by a `JobPlanner` and, with `--shard`, kept only when in this shard. A thread of its own produces
/// them at most a few hundred ahead of the batch, so the first file starts while the list is still
/// being written, and memory follows the pool, not the list.
public final class JobSource: Sendable {
    /// Where a list of paths comes from: an open file descriptor (standard input, or --files-from).
    public struct List: Sendable {
        public var descriptor: Int32
        public var nullSeparated: Bool
        /// How error lines name the list: its path, or "standard input".
        public var name: String

        public init(descriptor: Int32, nullSeparated: Bool, name: String = "standard input") {
            self.descriptor = descriptor
            self.nullSeparated = nullSeparated
            self.name = name
        }
    }

    private let channel: BoundedChannel<BatchJob>
    private let count = Atomic<Int>(0)

    /// - Parameters:
    ///   - excluding: a directory never to descend into (the output directory, so a second run of
    ///     `-r . -o out` does not take its own outputs as inputs).
    ///   - largestFirst: start a short argument list with its largest pictures (for more than one lane;
    ///     one lane keeps the order given).
    public init(arguments: [String], list: List?, recursive: Bool, excluding: String?,
                planner: JobPlanner, shard: ShardSpec? = nil, largestFirst: Bool = false) {
        let channel = BoundedChannel<BatchJob>(capacity: 256)
        self.channel = channel
        let walker = DirectoryWalker(excluding: excluding.map { RawPath.bytes(BatchPlan.canonicalPath($0)) })
        Thread.detachNewThread { [self] in
            var planner = planner
            // The jobs of a short argument list, held back to start the largest first (nil: sent as planned).
            var held: [BatchJob]? = largestFirst ? [] : nil
            func send(_ job: BatchJob) {
                count.add(1, ordering: .relaxed)
                guard held != nil else { return channel.send(job) }
                held?.append(job)
                if let jobs = held, jobs.count > LargestFirst.maxJobs {
                    held = nil
                    jobs.forEach(channel.send)
                }
            }
            func inShard(_ input: InputPath) -> Bool { shard.map { $0.contains(ShardSpec.key(for: input)) } ?? true }
            func deliver(_ event: InputEvent) {
                switch event {
                case .unusable(let path, let reason, let stage):
                    guard inShard(InputPath(path: path)) else { return }
                    send(BatchJob(input: path, output: "", problem: ImagePrepError(.io, reason, stage: stage)))
                case .inputs(let group):
                    // Every copy plans every input, so all shards agree on who claims an output first.
                    planner.expect(group)
                    for input in group {
                        guard let job = planner.job(for: input), inShard(input) else { continue }
                        send(job)
                    }
                }
            }
            func files(_ paths: [String]) -> [InputPath] {
                paths.compactMap(InputSource.localPath).filter { !RawPath.isDirectory($0) }.map { InputPath(path: $0) }
            }
            // The argument list is known whole, and so is each read of a list: announced before planning.
            planner.expect(files(arguments))
            for argument in arguments { Self.expand(argument, recursive: recursive, walker: walker, deliver) }
            if let jobs = held {
                held = nil
                LargestFirst.ordered(jobs) { LargestFirst.pixels(of: $0.input) }.forEach(channel.send)
            }
            if let list {
                let failure = Self.read(list, refuse: { deliver(.unusable(path: list.name, reason: $0)) }) { paths in
                    planner.expect(files(paths))
                    for path in paths { Self.expand(path, recursive: recursive, walker: walker, deliver) }
                }
                // Every shard reads the whole list, so every shard reports a list it could not finish.
                if let failure {
                    count.add(1, ordering: .relaxed)
                    channel.send(BatchJob(input: list.name, output: "", problem: ImagePrepError(.io, failure, stage: .read)))
                }
            }
            channel.finish()
        }
    }

    /// A source of the given jobs, for tests of the pool.
    init(_ jobs: [BatchJob]) {
        channel = BoundedChannel(jobs)
        count.store(jobs.count, ordering: .relaxed)
    }

    /// The next job, or nil when every argument and the whole list have been seen.
    public func next() async -> BatchJob? { await channel.next() }

    /// No job is left to come.
    public var isDrained: Bool { channel.isDrained }

    /// Every job is known (the arguments walked and the list read to its end), though some may not have
    /// started: `jobsFound` is the total.
    public var isComplete: Bool { channel.isFinished }

    /// Stops handing out jobs (the batch is stopping): `next` returns nil from now on, even while the
    /// list is still open.
    public func cancel() { channel.cancel() }

    /// Jobs handed out or waiting so far (the total, once drained).
    public var jobsFound: Int { count.load(ordering: .relaxed) }

    private static func expand(_ given: String, recursive: Bool, walker: DirectoryWalker,
                               _ deliver: (InputEvent) -> Void) {
        let argument: String
        switch InputSource.classify(given) {
        case .path(let path): argument = path  // a file: URL is its path from here on
        case .remote(let remote): return deliver(.inputs([InputPath(remote: remote)]))
        case .refused(let shown, let reason): return deliver(.unusable(path: shown, reason: reason, stage: .fetch))
        }
        guard RawPath.status(argument) != nil else {
            return deliver(.unusable(path: argument, reason: "no such file or directory"))
        }
        guard RawPath.isDirectory(argument) else { return deliver(.inputs([InputPath(path: argument)])) }
        guard recursive else {
            return deliver(.unusable(path: argument, reason: "is a directory; use -r to convert the images inside it"))
        }
        let root = argument.hasSuffix("/") && argument.count > 1 ? String(argument.dropLast()) : argument
        walker.walk(root) { files in deliver(.inputs(files.map { InputPath(path: $0, root: root) })) }
    }

    /// Reads paths as they arrive, one separator-terminated path at a time (the last may lack it),
    /// handing over each read's complete paths together.
    /// A line holding a NUL is no path (no file name holds one): it is a NUL-separated list read without
    /// `-0`, and is refused whole through `refuse`, never opened nor named after.
    /// - Returns: why the list could not be read to its end (an I/O error), or nil.
    private static func read(_ list: List, refuse: (String) -> Void, _ deliver: ([String]) -> Void) -> String? {
        let separator: UInt8 = list.nullSeparated ? 0 : UInt8(ascii: "\n")
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        func path(_ bytes: ArraySlice<UInt8>) -> String? {
            var bytes = bytes
            if !list.nullSeparated, bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            if bytes.contains(0) {
                let paths = bytes.split(separator: 0).count
                refuse("a line of the list holds NUL bytes (\(paths) paths separated by NUL, as find -print0 writes them): not used; add -0 (--null) to read such a list")
                return nil
            }
            return bytes.isEmpty ? nil : RawPath.decode(bytes)
        }
        var failure: String?
        while true {
            let count = chunk.withUnsafeMutableBytes { FileDescriptorIO.read(list.descriptor, into: $0.baseAddress, count: $0.count) }
            if count < 0 {
                // The paths read so far are still converted; the rest of the list is lost, and said so.
                failure = "cannot read the list of paths to its end: \(String(cString: strerror(errno)))"
                break
            }
            guard count > 0 else { break }
            pending += chunk[0..<count]
            guard let last = pending.lastIndex(of: separator) else { continue }
            deliver(pending[..<last].split(separator: separator, omittingEmptySubsequences: true).compactMap(path))
            pending.removeSubrange(...last)
        }
        if let final = path(pending[...]) { deliver([final]) }
        return failure
    }
}

/// Walks directory trees depth first in name order, handing over each directory's image files (sorted)
/// before descending into its subdirectories. Skips the excluded directory, directories already seen
/// (symlink loops), and our own temporary files (`.NAME.imgprep-XXXXXX`) of a run still going on.
/// Directories are compared as bytes: `café` written NFC and NFD are two folders on Linux, though Swift
/// strings would call them equal.
struct DirectoryWalker: Sendable {
    /// The canonical path's bytes.
    let excluding: [UInt8]?

    func walk(_ root: String, _ deliver: ([String]) -> Void) {
        var visited: Set<[UInt8]> = [RawPath.bytes(BatchPlan.canonicalPath(root))]
        walk(root, visited: &visited, deliver)
    }

    private func walk(_ directory: String, visited: inout Set<[UInt8]>, _ deliver: ([String]) -> Void) {
        var files: [String] = [], subdirectories: [String] = []
        // By bytes, like `ls` in the C locale: String order would tie names that differ only in normalisation.
        let names = (RawPath.names(in: directory) ?? []).map { ($0, RawPath.bytes($0)) }
            .sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        for name in names {
            let path = directory + "/" + name
            if name.hasPrefix("."), name.contains(".imgprep-") { continue }
            if RawPath.isDirectory(path) {
                let canonical = RawPath.bytes(BatchPlan.canonicalPath(path))
                if canonical != excluding && visited.insert(canonical).inserted { subdirectories.append(path) }
            } else if BatchPlan.looksLikeImage(path) {
                files.append(path)
            }
        }
        if !files.isEmpty { deliver(files) }
        for subdirectory in subdirectories { walk(subdirectory, visited: &visited, deliver) }
    }
}
