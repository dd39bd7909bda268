import Foundation

/// A test hook that makes a timeout happen without depending on machine speed:
/// `IMGPREP_TEST_STALL=STAGE:BYTES` makes the pipeline sleep (an hour) when a file of exactly BYTES bytes
/// reaches STAGE (a PipelineStage's name: `decode`, `resize`, `encode`, ...). Only the batch and `info`
/// read it: in a worker the timeout kills the process; in-process the abandoned thread sleeps until the
/// batch exits.
///
/// Compiled in only with `-D IMGPREP_TEST_HOOKS` (what `make test` builds its tests with): the shipped
/// tool and the library as a dependency have no such variable, so no environment changes what they do.
enum TestStall {
    #if IMGPREP_TEST_HOOKS
    private static let setting: (stage: PipelineStage, fileSize: Int)? = {
        guard let value = ProcessInfo.processInfo.environment["IMGPREP_TEST_STALL"] else { return nil }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let stage = PipelineStage(rawValue: String(parts[0])), let size = Int(parts[1]) else { return nil }
        return (stage, size)
    }()

    static func wait(at stage: PipelineStage, fileSize: Int) {
        if let setting, stage == setting.stage && fileSize == setting.fileSize { Thread.sleep(forTimeInterval: 3600) }
    }
    #else
    @inline(__always) static func wait(at stage: PipelineStage, fileSize: Int) {}
    #endif
}
