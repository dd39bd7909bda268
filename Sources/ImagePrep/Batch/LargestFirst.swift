/// The order in which a short argument list starts: the largest pictures first. With a dozen photos on
/// two lanes, a big one started last keeps one lane busy while the other idles; started first, the small
/// ones fill the end. Only the start order changes: outputs are planned in the order given (the first
/// claimant of an output still wins), and no output depends on the order (see docs/behaviour.md).
enum LargestFirst {
    /// Longer argument lists start in their own order: probing every header first would delay the first
    /// file, and the end of a long batch is a small part of it.
    static let maxJobs = 256
    /// Bytes read from each file for its picture size: the headers phones and cameras write fit.
    static let headBytes = 64 << 10

    /// `jobs` by decreasing `pixels`, refused jobs first (they fail at once), ties in the given order.
    static func ordered(_ jobs: [BatchJob], pixels: (BatchJob) -> Int) -> [BatchJob] {
        jobs.enumerated()
            .map { (index: $0.offset, job: $0.element, size: $0.element.problem == nil ? pixels($0.element) : Int.max) }
            .sorted { $0.size != $1.size ? $0.size > $1.size : $0.index < $1.index }
            .map(\.job)
    }

    /// The picture's pixels as its header gives them (every frame's), or 0 when the first `headBytes`
    /// do not say (such a file starts after those that do).
    static func pixels(of path: String) -> Int {
        guard let head = try? InputFile.head(path, count: headBytes),
              case .success(let format) = FormatSniffer.sniff(head),
              let header = HeaderProbe.header(of: head, format: format) else { return 0 }
        return header.pixelCount
    }
}
