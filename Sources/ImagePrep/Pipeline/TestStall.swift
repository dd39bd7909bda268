import Foundation

/// A test hook that makes a timeout happen without depending on machine speed:
/// `IMGPREP_TEST_STALL=STAGE:BYTES` makes the pipeline sleep (an hour) when a file of exactly BYTES bytes
/// reaches STAGE (a PipelineStage's name: `decode`, `resize`, `encode`, ...). Only the batch reads it: in a
/// worker the timeout kills the process; in-process the abandoned thread sleeps until the batch exits.
struct TestStall: Sendable {
    let stage: PipelineStage
    let fileSize: Int

    init?(_ environment: [String: String]) {
        guard let value = environment["IMGPREP_TEST_STALL"] else { return nil }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let stage = PipelineStage(rawValue: String(parts[0])), let size = Int(parts[1]) else { return nil }
        self.stage = stage
        self.fileSize = size
    }

    func wait(at stage: PipelineStage, fileSize: Int) {
        if stage == self.stage && fileSize == self.fileSize { Thread.sleep(forTimeInterval: 3600) }
    }
}
