import Foundation

/// Copies of one picture that are different files: the run's de-duplication (same bytes, one preparation)
/// and the cache must not make a test of many files a test of one. The picture is unchanged: a HEIF gets
/// a trailing `free` box naming the copy, a JPEG the same name after its EOI marker.
enum DistinctInputs {
    static func variant(of file: [UInt8], index: Int) -> [UInt8] {
        let tag = Array("imgprep test copy \(index)".utf8)
        if file.starts(with: [0xFF, 0xD8]) { return file + tag }
        let size = UInt32(8 + tag.count)
        return file + withUnsafeBytes(of: size.bigEndian, Array.init) + Array("free".utf8) + tag
    }

    /// `count` distinct copies of `source` in `directory`, named by `name`.
    static func copies(of source: String, count: Int, in directory: String, name: (Int) -> String) throws -> [String] {
        let file = try TestSupport.bytes(source)
        return try (0..<count).map { index in
            let path = directory + "/" + name(index)
            try Data(variant(of: file, index: index)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }
}
