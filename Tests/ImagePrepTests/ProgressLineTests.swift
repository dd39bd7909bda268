import Foundation
import Testing
@testable import ImagePrep

/// The progress line on a terminal: a bar and an ETA as soon as the total is known, not only once the
/// last file has started.
@Suite struct ProgressLineTests {
    /// Every input named on the command line: the source has found them all at once, so after the first
    /// file of ten the line already has its bar, total and ETA (it used to wait until every job had been
    /// handed out, that is, until the last file started).
    @Test func theBarAndETAShowAsSoonAsEveryInputIsKnown() async {
        let source = JobSource((0..<10).map { BatchJob(input: "in\($0).heic", output: "out\($0).jpg") })
        _ = await source.next()
        _ = await source.next()
        #expect(source.isComplete && !source.isDrained)
        let line = ProgressLine.text(done: 1, source: source, elapsed: 2)
        #expect(line == "\r[##                      ] 1/10  0.5 files/s  ETA 18s ", "\(line)")
    }

    /// A list still arriving on a pipe: the count is a floor ("3/3+") and there is no ETA to give.
    @Test func aListStillArrivingShowsAFloorAndNoETA() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[1]) }
        let source = JobSource(arguments: [], list: JobSource.List(descriptor: ends[0], nullSeparated: false),
                               recursive: false, excluding: nil,
                               planner: JobPlanner(format: .jpeg, outputDirectory: nil, inPlace: false))
        defer { source.cancel() }
        #expect(!source.isComplete, "the list's writer has not closed the pipe")
        let line = ProgressLine.text(done: 3, source: source, elapsed: 2)
        #expect(line.hasPrefix("\r3/3+ ") && !line.contains("ETA"), "\(line)")
    }

    @Test func aKnownTotalDrawsAFullBarAtTheEnd() {
        #expect(ProgressLine.text(done: 4, found: 4, totalKnown: true, elapsed: 1).contains("[########################] 4/4"))
    }
}
