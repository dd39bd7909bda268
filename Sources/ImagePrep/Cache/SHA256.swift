// Plain import: Swift 6 rejects `internal import` of a module other files here import implicitly.
import CImageCodecs
import Foundation

/// SHA-256 (FIPS 180-4), incremental so a large input can be hashed as it is read. Uses the x86 SHA
/// extensions when the CPU has them (about 6x the portable code). Foundation on Linux has no SHA-256
/// and one hash is not worth a crypto library, hence our own C (Sources/CImageCodecs/sha256.c).
public struct SHA256: Sendable {
    public static let digestSize = 32

    private var context = cic_sha256_context()

    public init() {
        cic_sha256_init(&context)
    }

    /// Which implementation runs; `automatic` is the only one outside tests and measurements.
    enum Engine: Sendable {
        case automatic, portable, accelerated
    }

    /// Forces an implementation. `accelerated` on a CPU without the SHA extensions returns nil.
    init?(engine: Engine) {
        let code: cic_sha256_engine = switch engine {
        case .automatic: CIC_SHA256_AUTO
        case .portable: CIC_SHA256_PORTABLE
        case .accelerated: CIC_SHA256_ACCELERATED
        }
        guard cic_sha256_init_engine(&context, code) == 0 else { return nil }
    }

    /// True when this CPU has the SHA extensions, so `automatic` takes the fast path.
    static var acceleratedAvailable: Bool { cic_sha256_accelerated_available() != 0 }

    public mutating func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }  // nothing to add
            cic_sha256_update(&context, base, buffer.count)
        }
    }

    /// The digest; the hasher is used up.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Self.digestSize)
        digest.withUnsafeMutableBufferPointer { cic_sha256_final(&context, $0.baseAddress!) }  // 32 bytes, never empty
        return digest
    }

    public static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of a whole file, read a megabyte at a time (never all in memory).
    public static func hash(contentsOf path: String) throws -> [UInt8] {
        let fd: Int32
        switch RegularFile.open(path) {
        case .success(let opened): fd = opened.fd
        case .failure(let refusal): throw ImagePrepError(.io, "cannot read the file: \(refusal)")
        }
        defer { close(fd) }
        var hasher = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { FileDescriptorIO.read(fd, into: $0.baseAddress, count: $0.count) }
            if count < 0 { throw ImagePrepError(.io, "cannot read the file: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            hasher.update(chunk[..<count])
        }
        return hasher.finalize()
    }

    /// Lowercase hexadecimal, as `sha256sum` prints it.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
