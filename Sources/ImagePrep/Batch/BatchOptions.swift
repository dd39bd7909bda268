import Foundation

/// What happens to outputs that already exist.
public enum ExistingOutputPolicy: Sendable {
    case overwrite
    /// Leave every existing output alone.
    case skip
    /// Leave outputs that are newer than their input alone (Makefile-style).
    case update
}

public struct BatchOptions: Sendable {
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    public var existing = ExistingOutputPolicy.overwrite
    public var dryRun = false
    public var preserveModificationTime = false
    public var inPlace = false
    public var failFast = false
    /// Threads each picture uses, instead of what the pool decides from the idle cores (never changes
    /// the bytes; see Scheduling).
    public var threadsPerImage: Int?
    /// Input files larger than this are refused before they are read (the batch reads them; the
    /// pipeline never sees the limit, so it is not part of the settings or the cache key).
    public var maxInputBytes = InputFile.defaultMaxBytes

    public init() {}
}
