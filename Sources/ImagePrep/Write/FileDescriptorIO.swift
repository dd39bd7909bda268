import Foundation

/// read(2) and write(2) that go on when a signal interrupts them (imgprep handles SIGINT and SIGTERM, so
/// EINTR happens), in one place for every file, pipe and cache entry.
enum FileDescriptorIO {
    /// Up to `count` bytes into `buffer`: the number read, 0 at the end, or -1 with errno set.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer?, count: Int) -> Int {
        while true {
            let n = Foundation.read(fd, buffer, count)
            if n >= 0 || errno != EINTR { return n }
        }
    }

    /// Exactly `size` bytes from `fd`, or nil when the file is shorter or longer than `fstat` said
    /// (a cache entry being replaced, or damaged).
    static func readExactly(_ fd: Int32, size: Int) -> [UInt8]? {
        var file = [UInt8](repeating: 0, count: size + 1)  // one more, to see a file that grew
        var filled = 0
        while filled < file.count {
            let count = file.withUnsafeMutableBytes { read(fd, into: $0.baseAddress! + filled, count: $0.count - filled) }  // never empty: size + 1
            if count <= 0 { break }
            filled += count
        }
        guard filled == size else { return nil }
        file.removeLast()
        return file
    }

    /// All of `bytes`, continuing after short writes; false with errno set when a write fails.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // A non-empty buffer has a base address.
                let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
