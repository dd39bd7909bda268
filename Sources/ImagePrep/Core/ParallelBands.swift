import Dispatch

/// Runs `body` over `0..<count` split into `threads` contiguous bands, concurrently when `threads` > 1.
func inBands(of count: Int, threads: Int, _ body: @Sendable (Range<Int>) -> Void) {
    let bands = max(1, min(threads, count))
    if bands == 1 { return body(0..<count) }
    DispatchQueue.concurrentPerform(iterations: bands) { band in
        body(band * count / bands ..< (band + 1) * count / bands)
    }
}

/// A pointer shared by worker threads that write disjoint rows.
struct SharedPointer<Pointee>: @unchecked Sendable {  // each thread writes its own rows; the owner outlives the threads
    let pointer: UnsafeMutablePointer<Pointee>
    init(_ pointer: UnsafeMutablePointer<Pointee>) { self.pointer = pointer }
}
