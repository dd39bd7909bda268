import Foundation

/// Reads input images with a ceiling. Only regular files are read: a device (`/dev/zero`) or a FIFO
/// would feed bytes until memory ran out, or block for ever waiting for a writer. A regular file is
/// read up to the size `stat` gives it, which is checked against the limit first; one that holds more
/// than that (a file still being written, or a `/proc` or `/sys` file, whose size reads as 0) is refused.
public enum InputFile {
    /// Far above any photo the default pixel cap admits (a 300 MP JPEG at quality 100 is about 200 MB).
    public static let defaultMaxBytes = 1_000_000_000

    /// The whole file, or an error that says why it was not read.
    public static func read(_ path: String, maxBytes: Int = defaultMaxBytes) throws -> [UInt8] {
        try withRegularFile(path) { fd, size in
            guard size <= maxBytes else {
                throw ImagePrepError(.tooLarge, "the file is \(size) bytes, over the --max-input-size limit of \(ByteSize.format(maxBytes))", stage: .read)
            }
            let bytes = try readUpTo(size, from: fd)
            var probe: UInt8 = 0
            if bytes.count == size, try readSome(fd, into: &probe, count: 1) > 0 {
                throw ImagePrepError(.io, "the file holds more than the \(size) bytes its size says (still being written, or a /proc or /sys file); not read",
                                     stage: .read)
            }
            return bytes
        }
    }

    /// Everything until end of file from an open descriptor (standard input: `imgprep convert -`), a chunk
    /// at a time, refused once it holds more than `maxBytes`.
    public static func readStream(_ fd: Int32, maxBytes: Int = defaultMaxBytes) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try chunk.withUnsafeMutableBufferPointer { try readSome(fd, into: $0.baseAddress!, count: $0.count) }  // non-empty
            if n == 0 { return bytes }
            guard bytes.count + n <= maxBytes else {
                throw ImagePrepError(.tooLarge, "the input is over the --max-input-size limit of \(ByteSize.format(maxBytes))", stage: .read)
            }
            bytes += chunk[0..<n]
        }
    }

    /// At most the first `count` bytes (fewer when the file is shorter), for sniffing; the same files are refused.
    public static func head(_ path: String, count: Int) throws -> [UInt8] {
        try withRegularFile(path) { fd, size in try readUpTo(min(count, size), from: fd) }
    }

    /// The file's size and at most its first `count` bytes: enough to estimate its memory before reading it.
    public static func sizeAndHead(_ path: String, count: Int) throws -> (size: Int, head: [UInt8]) {
        try withRegularFile(path) { fd, size in (size, try readUpTo(min(count, size), from: fd)) }
    }

    private static func withRegularFile<R>(_ path: String, _ body: (Int32, Int) throws -> R) throws -> R {
        switch RegularFile.open(path) {
        case .failure(.failed(let code)):
            throw ImagePrepError(.io, reason(code), stage: .read)
        case .failure(.notRegular(let what, _)):
            throw ImagePrepError(.io, "not a regular file (\(what)); imgprep reads images from regular files only", stage: .read)
        case .success(let (fd, info)):
            defer { close(fd) }
            return try body(fd, Int(info.st_size))
        }
    }

    /// Up to `count` bytes, read straight into the result (no intermediate buffer); fewer at end of file.
    private static func readUpTo(_ count: Int, from fd: Int32) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            filled = 0
            while filled < count {
                let n = try readSome(fd, into: buffer.baseAddress! + filled, count: count - filled)  // count > 0 here
                if n == 0 { break }
                filled += n
            }
        }
    }

    private static func readSome(_ fd: Int32, into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let n = FileDescriptorIO.read(fd, into: buffer, count: count)
        if n < 0 { throw ioError("cannot read the file") }
        return n
    }

    private static func ioError(_ what: String) -> ImagePrepError {
        ImagePrepError(.io, "\(what): \(reason(errno))", stage: .read)
    }

    /// The system's reason in the lower case of the rest of a line ("no such file or directory").
    public static func reason(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
