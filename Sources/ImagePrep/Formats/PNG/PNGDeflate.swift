import CDeflate

/// PNG's picture data deflated again by libdeflate, whose levels 10-12 search harder than zlib's 9
/// (the gain optipng, oxipng and zopflipng make). libpng writes the file with its picture data stored
/// (deflate level 0, only copying), and the stored data is deflated here once, into one IDAT chunk.
enum PNGDeflate {
    /// libdeflate's range: 0 stores, 12 searches hardest.
    static let levels = 0...12

    /// The filtered rows (a filter byte a row plus the packed samples) of `file`, a PNG libpng just wrote
    /// with its picture data stored. `filteredSize` is what they take: the data must inflate to exactly that.
    static func filteredRows(of file: [UInt8], filteredSize: Int) throws -> [UInt8] {
        let chunks = try imageDataChunks(in: file)
        var stream: [UInt8] = []
        stream.reserveCapacity(chunks.dataSize)
        for range in chunks.data { stream += file[range] }
        return try inflate(stream, to: filteredSize)
    }

    /// `filtered` as a zlib stream at `level`.
    static func deflated(_ filtered: [UInt8], level: Int) throws -> [UInt8] {
        guard levels.contains(level) else { throw failure("deflate level \(level) is outside \(levels)") }
        return try deflate(filtered, level: level)
    }

    /// `file` with its IDAT chunks replaced by one holding `deflated`, a zlib stream of the same rows.
    static func replacingImageData(of file: [UInt8], with deflated: [UInt8]) throws -> [UInt8] {
        guard deflated.count <= Int(Int32.max) else { throw failure("picture data too large for one chunk") }
        let chunks = try imageDataChunks(in: file)
        var out = Array(file[..<chunks.start])
        out.reserveCapacity(chunks.start + deflated.count + 12 + (file.count - chunks.end))
        let typeAndData = Array("IDAT".utf8) + deflated
        appendBigEndian(UInt32(deflated.count), to: &out)
        out += typeAndData
        appendBigEndian(typeAndData.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }, to: &out)
        out += file[chunks.end...]
        return out
    }

    /// Where the consecutive IDAT chunks start and end, and the byte ranges of their data.
    private static func imageDataChunks(in file: [UInt8]) throws -> (start: Int, end: Int, data: [Range<Int>], dataSize: Int) {
        var offset = 8
        var start: Int?
        var data: [Range<Int>] = []
        var dataSize = 0
        while offset <= file.count - 12 {
            let length = file[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= file.count - offset - 12 else { throw failure("a chunk runs past the end of the file") }
            let isImageData = file[offset + 4..<offset + 8].elementsEqual("IDAT".utf8)
            if isImageData {
                if start == nil { start = offset } else if data.last?.upperBound.advanced(by: 4) != offset {
                    throw failure("the picture data is not in consecutive chunks")
                }
                data.append(offset + 8..<offset + 8 + length)
                dataSize += length
            } else if let start {
                return (start, offset, data, dataSize)
            }
            offset += 12 + length
        }
        throw failure("no picture data followed by an end chunk")
    }

    private static func inflate(_ stream: [UInt8], to size: Int) throws -> [UInt8] {
        guard let decompressor = libdeflate_alloc_decompressor() else { throw failure("out of memory") }
        defer { libdeflate_free_decompressor(decompressor) }
        var out = [UInt8](repeating: 0, count: size)
        // A NULL actual size: libdeflate succeeds only when the data inflates to exactly `size` bytes.
        let result = stream.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, output.baseAddress, output.count, nil)
            }
        }
        guard result == LIBDEFLATE_SUCCESS else { throw failure("the stored picture data did not inflate to \(size) bytes") }
        return out
    }

    /// libdeflate's deflate, and for small data at the top levels also zlib's level 9, whose block
    /// choice wins a few bytes on tiny pictures (icons, 2x2): the smaller, libdeflate's of equals.
    private static func deflate(_ data: [UInt8], level: Int) throws -> [UInt8] {
        let deflated = try libdeflateDeflate(data, level: level)
        guard level >= 10, data.count <= 1 << 16, let zlib = zlibDeflate(data), zlib.count < deflated.count else { return deflated }
        return zlib
    }

    private static func zlibDeflate(_ data: [UInt8]) -> [UInt8]? {
        var size = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                compress2(output.baseAddress?.assumingMemoryBound(to: Bytef.self), &size,
                          input.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(input.count), 9)
            }
        }
        guard status == Z_OK else { return nil }
        out.removeSubrange(Int(size)...)
        return out
    }

    private static func libdeflateDeflate(_ data: [UInt8], level: Int) throws -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(Int32(level)) else { throw failure("out of memory") }
        defer { libdeflate_free_compressor(compressor) }
        var out = [UInt8](repeating: 0, count: libdeflate_zlib_compress_bound(compressor, data.count))
        let size = data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                libdeflate_zlib_compress(compressor, input.baseAddress, input.count, output.baseAddress, output.count)
            }
        }
        guard size > 0 else { throw failure("deflate did not fit its own bound") }
        out.removeSubrange(size...)
        return out
    }

    private static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func failure(_ message: String) -> ImagePrepError {
        .library("libdeflate", message, kind: .unsupported)
    }
}

extension CodecLibrary {
    /// libdeflate has no version call: the version of the headers imgprep was built with.
    static let libdeflate = CodecLibrary("libdeflate") { "\(LIBDEFLATE_VERSION_STRING) (built against)" }
}
