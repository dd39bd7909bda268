import Foundation

/// What an output cache entry is filed under: SHA-256 over everything that decides the output bytes
/// (the input's bytes, the settings, imgprep's version, the codec libraries' versions) and nothing
/// else, so a fresh checkout at another path with new mtimes finds the same entries.
public struct CacheKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 32 bytes.
    public let digest: [UInt8]

    /// - Parameters:
    ///   - inputDigest: SHA-256 of the input file's bytes (`SHA256.hash(contentsOf:)` hashes as it reads;
    ///     the same digest finds identical inputs in one run).
    ///   - settingsFingerprint: a canonical encoding of every setting that can change the output, and
    ///     only those (not the thread count, not the output path); see `fingerprint(of:)`.
    ///   - versions: imgprep's version and each codec library's, in a fixed order.
    public init(inputDigest: [UInt8], settingsFingerprint: [UInt8], versions: [String]) {
        var hasher = SHA256()
        // Every field is length-prefixed so no two different field lists encode alike. The tag names
        // this layout: a change to the key or the entry format changes the tag, so old entries are
        // simply never found again (and age out) rather than misread.
        hasher.update(Array("imgprep output cache key v1\n".utf8))
        Self.appendField(inputDigest, to: &hasher)
        Self.appendField(settingsFingerprint, to: &hasher)
        Self.appendLength(versions.count, to: &hasher)
        for version in versions { Self.appendField(Array(version.utf8), to: &hasher) }
        digest = hasher.finalize()
    }

    /// The key for input bytes already in memory.
    public init(input: [UInt8], settingsFingerprint: [UInt8], versions: [String]) {
        self.init(inputDigest: SHA256.hash(input), settingsFingerprint: settingsFingerprint, versions: versions)
    }

    /// A fingerprint of settings: SHA-256 of their JSON with sorted keys, which is the same for equal
    /// values on every run and machine of one imgprep version (the version is part of the key anyway).
    public static func fingerprint(of settings: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return SHA256.hash(try encoder.encode(settings))
    }

    /// The first 8 bytes of the digest: enough to tell a run's entries apart, in little memory.
    var shortID: UInt64 { digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }

    /// 64 lowercase hex digits; also the entry's file name (after its first two digits).
    public var hex: String { SHA256.hex(digest) }

    public var description: String { hex }

    private static func appendField(_ bytes: [UInt8], to hasher: inout SHA256) {
        appendLength(bytes.count, to: &hasher)
        hasher.update(bytes)
    }

    private static func appendLength(_ length: Int, to hasher: inout SHA256) {
        withUnsafeBytes(of: UInt64(length).bigEndian) { hasher.update(Array($0)) }
    }
}
