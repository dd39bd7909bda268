import CImageCodecs
import Glibc

/// Signals as bytes on a pipe, for a command that must clean up before it exits: the handler only writes the
/// signal's number (async-signal-safe), and whoever reads the pipe decides what happens, on its own thread.
public enum SignalPipe {
    /// Handles `signals` from now on; the read end of the pipe, or nil if it could not be made (no file
    /// descriptors left) or is made already: the signals then keep what they did before.
    public static func install(_ signals: [Int32]) -> Int32? {
        let readEnd = signals.withUnsafeBufferPointer { cic_signal_pipe_install($0.baseAddress, Int32($0.count)) }
        return readEnd >= 0 ? readEnd : nil
    }

    /// The next signal number from `readEnd`, waiting at most `seconds` (for ever when nil); nil on timeout.
    public static func next(from readEnd: Int32, within seconds: Double? = nil) -> Int32? {
        var waiting = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        let milliseconds = seconds.map { Int32(max(0, min($0, 3600)) * 1000) } ?? -1
        while true {
            let ready = poll(&waiting, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var byte: UInt8 = 0
            let count = read(readEnd, &byte, 1)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            return count == 1 ? Int32(byte) : nil
        }
    }
}
