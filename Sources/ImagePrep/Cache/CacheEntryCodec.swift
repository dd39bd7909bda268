import Foundation

/// An output found in the cache, verified.
public struct CacheEntry: Sendable, Equatable {
    public var bytes: [UInt8]
    public var output: CachedOutput
}

/// The bytes of one entry file:
///
///     "IMGPREPC"  format version (u32)  key digest (32)  header length (u32)  output length (u64)
///     header: CachedOutput as JSON      output bytes      SHA-256 of everything before it (32)
///
/// Integers are big-endian. Reading checks every length against the file's size before using it,
/// the key against the one asked for (a file copied or renamed to the wrong name is not an output),
/// and the checksum over the whole entry, so a truncated, damaged or misplaced entry is never taken
/// for an output.
enum CacheEntryCodec {
    static let magic = Array("IMGPREPC".utf8)
    /// 2: the header is the whole prepared result (1 kept a few of its fields).
    static let formatVersion: UInt32 = 2
    static let prefixSize = 8 + 4 + 32 + 4 + 8
    static let checksumSize = 32
    /// A header is a few hundred bytes; warnings are short sentences.
    static let maxHeaderSize = 1 << 20

    /// Why an entry file is not a usable entry.
    enum Damage: Error, Equatable {
        case truncated, notAnEntry, unknownFormatVersion, wrongKey, sizeMismatch, checksumMismatch, unreadableHeader
    }

    static func encode(key: CacheKey, output: CachedOutput, bytes: [UInt8]) throws -> [UInt8] {
        let header: [UInt8]
        do {
            header = Array(try JSONEncoder().encode(output))
        } catch {
            throw ImagePrepError(.io, "cannot describe the output for the cache: \(error)")
        }
        guard header.count <= maxHeaderSize else { throw ImagePrepError(.io, "the output's description is too long to cache") }
        var file = [UInt8]()
        file.reserveCapacity(prefixSize + header.count + bytes.count + checksumSize)
        file += magic
        append(formatVersion, to: &file)
        file += key.digest
        append(UInt32(header.count), to: &file)
        append(UInt64(bytes.count), to: &file)
        file += header
        file += bytes
        file += SHA256.hash(file)
        return file
    }

    static func decode(_ file: [UInt8], key: CacheKey) -> Result<CacheEntry, Damage> {
        guard file.count >= prefixSize + checksumSize else { return .failure(.truncated) }
        guard file.starts(with: magic) else { return .failure(.notAnEntry) }
        guard readInteger(file, at: 8, as: UInt32.self) == formatVersion else { return .failure(.unknownFormatVersion) }
        guard file[12..<44].elementsEqual(key.digest) else { return .failure(.wrongKey) }
        let headerLength = readInteger(file, at: 44, as: UInt32.self)
        let outputLength = readInteger(file, at: 48, as: UInt64.self)
        // Both lengths are bounded before they are added, so the sum cannot overflow.
        guard headerLength <= maxHeaderSize, outputLength <= UInt64(Int.max / 2) else { return .failure(.sizeMismatch) }
        let expectedSize = prefixSize + Int(headerLength) + Int(outputLength) + checksumSize
        guard file.count >= expectedSize else { return .failure(.truncated) }
        guard file.count == expectedSize else { return .failure(.sizeMismatch) }
        let checksumStart = file.count - checksumSize
        guard SHA256.hash(file[..<checksumStart]).elementsEqual(file[checksumStart...]) else { return .failure(.checksumMismatch) }
        let headerEnd = prefixSize + Int(headerLength)
        guard let output = try? JSONDecoder().decode(CachedOutput.self, from: Data(file[prefixSize..<headerEnd])),
              output.width > 0, output.height > 0, output.summary.encodes >= 0 else { return .failure(.unreadableHeader) }
        return .success(CacheEntry(bytes: Array(file[headerEnd..<checksumStart]), output: output))
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to file: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { file += $0 }
    }

    private static func readInteger<T: FixedWidthInteger>(_ file: [UInt8], at offset: Int, as: T.Type) -> T {
        file[offset..<offset + MemoryLayout<T>.size].reduce(T(0)) { $0 << 8 | T($1) }
    }
}
