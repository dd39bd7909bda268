/// A picture's stored size read from its headers in Swift, without any codec library: the batch parent
/// uses it to schedule files by memory, and no C decoder runs in the parent process.
/// Bounds-checked throughout: a header it cannot read gives nil, never a trap. Each format's probe
/// lives in its folder (`Formats/<NAME>/…HeaderProbe.swift`); this asks the file's reader for it.
public enum HeaderProbe {
    public static func header(of file: [UInt8], format: SniffedFormat) -> ImageHeader? {
        format.reader.probeHeader(file)
    }
}
