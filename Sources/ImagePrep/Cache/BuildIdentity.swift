import Foundation
import Synchronization

/// Which build of imgprep is running: SHA-256 of its executable. Part of the cache key, so an entry made
/// by one build is never served by another (a version number is not enough: changes that alter output
/// bytes do not all bump it). Hashing takes a moment, so the digest is remembered in the cache directory
/// (`executables/`), filed under the executable's device, inode, size and change times: a file with the
/// same name but other bytes has another inode or a newer ctime, which no one can set back.
enum BuildIdentity {
    /// The notes' folder in the cache directory; a trim keeps the notes of recently used builds only
    /// (`CacheTrimming.trimExecutableNotes`).
    static let folder = "executables"

    /// Once per process.
    private static let known = Mutex<String?>(nil)

    /// 64 hex digits, or, when the executable cannot be read, a value unique to this process (the cache
    /// then never hits rather than risk serving another build's outputs).
    static func digest(rememberedIn cache: String) -> String {
        if let digest = known.withLock({ $0 }) { return digest }
        let digest = compute(rememberedIn: cache) ?? "unreadable executable \(UUID().uuidString)"
        known.withLock { $0 = $0 ?? digest }
        return known.withLock { $0 } ?? digest
    }

    private static func compute(rememberedIn cache: String) -> String? {
        guard case .success(let (fd, info)) = RegularFile.open("/proc/self/exe") else { return nil }
        defer { close(fd) }
        let memo = "\(cache)/\(folder)/\(info.st_dev)-\(info.st_ino)-\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
        if let remembered = try? InputFile.read(memo, maxBytes: 64), remembered.count == 64,
           remembered.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
            _ = RawPath.withCString(memo) { utimensat(AT_FDCWD, $0, nil, 0) }  // used now: a trim keeps it
            return String(decoding: remembered, as: UTF8.self)
        }
        var hasher = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { FileDescriptorIO.read(fd, into: $0.baseAddress, count: $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            hasher.update(chunk[..<count])
        }
        let digest = SHA256.hex(hasher.finalize())
        try? AtomicWriter.write(Array(digest.utf8), to: memo)  // only saves time next run
        return digest
    }
}
