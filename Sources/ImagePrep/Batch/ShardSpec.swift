/// One shard of a run split across machines: shard `index` of `count`, counted from 1 as in
/// Playwright's and Jest's `--shard K/N`. Which shard an input falls in depends only on its key (see
/// `key(for:)`), so every machine knows its share without listing the others, adding or removing a
/// file never moves another one, and the `count` shards together are exactly one whole run.
public struct ShardSpec: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1...count.
    public let index: Int
    public let count: Int
    /// Where the numbers came from, for reports: `--shard` or the variables of `--shard auto`
    /// (`GitLab CI_NODE_INDEX=2 CI_NODE_TOTAL=4`).
    public let origin: String

    public init(index: Int, count: Int, origin: String = "--shard") throws(ShardSpecError) {
        guard count >= 1 else { throw ShardSpecError("the shard count must be at least 1 (got \(count))") }
        guard (1...count).contains(index) else {
            throw ShardSpecError("shard \(index) of \(count) is out of range: shards count from 1, so K must be 1...\(count)")
        }
        self.index = index
        self.count = count
        self.origin = origin
    }

    /// `K/N` (digits only, 1 <= K <= N), or `auto` to read them from the CI or cluster environment.
    public init(parsing text: String, environment: [String: String]) throws(ShardSpecError) {
        if text == "auto" {
            self = try ShardEnvironment.shard(from: environment)
            return
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Self.wholeNumber(parts[0]), let n = Self.wholeNumber(parts[1]) else {
            throw ShardSpecError("invalid value '\(text)' for --shard: expected K/N counting from 1 (such as 2/5), or auto")
        }
        do {
            try self.init(index: k, count: n)
        } catch {
            throw ShardSpecError("invalid value '\(text)' for --shard: \(error)")
        }
    }

    /// Decoding checks the same rules as the initializer: a count of 0 would divide by zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(index: container.decode(Int.self, forKey: .index), count: container.decode(Int.self, forKey: .count),
                      origin: container.decode(String.self, forKey: .origin))
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// Whether the input with this key (see `key(for:)`) is this shard's to process.
    public func contains(_ key: [UInt8]) -> Bool {
        Self.shard(of: key, count: count) == index
    }

    /// The shard (1...count) an input key falls in: the first 8 bytes of the key's SHA-256, read as a
    /// big-endian unsigned integer, modulo `count`, plus 1. Fixed forever: changing it would move
    /// files between the shards of machines running different imgprep versions. (The bias of a
    /// 64-bit value modulo a count below a million is under 10^-13.)
    public static func shard(of key: [UInt8], count: Int) -> Int {
        precondition(count >= 1, "ShardSpec guarantees a count of at least 1")
        let digest = SHA256.hash(key)
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count)) + 1
    }

    /// What decides an input's shard: its path relative to the `-r` directory it was found under, or
    /// the path as given (collapsing `.`, `..` and repeated slashes, so `./a.heic` and `a.heic` agree),
    /// as the bytes the file system uses. Neither depends on where the checkout sits, so
    /// `-r /builds/1/photos` and `-r photos` assign alike.
    public static func key(for input: InputPath) -> [UInt8] {
        if let root = input.root, let relative = OutputNaming.relativePath(of: input.path, under: root) {
            return RawPath.bytes(OutputNaming.normalize(relative))
        }
        return RawPath.bytes(OutputNaming.normalize(input.path))
    }

    static func wholeNumber(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)  // nil past Int.max
    }
}

/// A `--shard` value that cannot be used, as a sentence naming the value or the variables.
public struct ShardSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
