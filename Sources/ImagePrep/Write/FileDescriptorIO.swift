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
