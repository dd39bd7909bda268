import Foundation
import Synchronization

extension FileConverter {
    /// The pipeline in this process (`IMGPREP_ISOLATION=off`, and tests), on a thread of its own under
    /// the same `--timeout` as a worker: a file over it fails with the same message and the batch goes
    /// on. A thread cannot be killed, so the abandoned one runs to its end, holding its admission to
    /// the memory gate until then. Decoded photos take tens of MB each: see `tuneAllocator` for the
    /// glibc settings that keep peak memory down.
    public static func inProcess(timeout: Double?) -> Prepare {
        { bytes, settings, context in
            let run = InProcessRun()
            context.ticket?.hold()
            return try await withCheckedThrowingContinuation { continuation in
                run.start(continuation)
                Thread.detachNewThread {
                    defer { context.ticket?.release() }
                    let result = Result {
                        try ImagePipeline.prepare(bytes, settings: settings, scheduling: context.scheduling) { stage in
                            run.reached(stage)
                            TestStall.wait(at: stage, fileSize: bytes.count)
                        }
                    }
                    run.finish(result)
                }
                if let timeout {
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                        run.finish(.failure(ImagePrepError(.timeout,
                            "no result after \(WorkerPool.seconds(timeout)); the file was abandoned (--timeout)", stage: run.stage)))
                    }
                }
            }
        }
    }
}

/// One in-process preparation: the first of its result and its timeout resumes the caller.
private final class InProcessRun: Sendable {
    private struct State {
        var continuation: CheckedContinuation<PreparedImage, any Error>?
        var stage: PipelineStage?
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<PreparedImage, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func reached(_ stage: PipelineStage) { state.withLock { $0.stage = stage } }

    var stage: PipelineStage? { state.withLock { $0.stage } }

    func finish(_ result: Result<PreparedImage, any Error>) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}
