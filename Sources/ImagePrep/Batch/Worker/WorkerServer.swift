import Foundation

/// The worker side: a long-lived process that prepares one file at a time for the batch parent, so
/// that a crash, a hang or a memory bomb inside a C decoder costs that file only.
public enum WorkerServer {
    /// Serves requests from standard input and answers on standard output until the parent closes
    /// the pipe. Returns the process exit status (the caller exits with it).
    public static func serve() -> Int32 {
        // The protocol gets its own descriptors; 0 becomes /dev/null and 1 goes to stderr, so a C library
        // that prints can never corrupt a frame.
        let channel = WorkerChannel(readFD: dup(STDIN_FILENO), writeFD: dup(STDOUT_FILENO))
        guard channel.readFD >= 0, channel.writeFD >= 0 else { return 70 }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if null >= 0 { dup2(null, STDIN_FILENO); close(null) }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        // The parent alone decides about interruptions: it kills workers when the batch stops.
        for interruption in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { signal(interruption, SIG_IGN) }
        // A parent that died leaves a closed pipe: the write fails and the worker exits.
        signal(SIGPIPE, SIG_IGN)
        FileConverter.tuneAllocator()
        do { try channel.send(WorkerReply.ready) } catch { return 74 }

        while true {
            let frame: WorkerFrame
            do {
                guard let next = try channel.receive() else { return 0 }
                frame = next
            } catch {
                return 74
            }
            do {
                var output: [UInt8] = []
                let request = try channel.decode(WorkerRequest.self, from: frame)
                let reply: WorkerReply
                do {
                    switch request {
                    case .prepare(let settings, let scheduling, let ceiling):
                        setDataLimit(ceiling)
                        defer { setDataLimit(nil) }
                        var prepared = try ImagePipeline.prepare(frame.payload, settings: settings, scheduling: scheduling) { stage in
                            try? channel.send(WorkerReply.stage(stage))
                            TestStall.wait(at: stage, fileSize: frame.payload.count)
                        }
                        swap(&output, &prepared.bytes)
                        reply = .prepared(image: prepared)
                    case .inspect(let ceiling):
                        setDataLimit(ceiling)
                        defer { setDataLimit(nil) }
                        reply = .inspected(description: try ImageInspector.inspect(frame.payload) { stage in
                            try? channel.send(WorkerReply.stage(stage))
                            TestStall.wait(at: stage, fileSize: frame.payload.count)
                        })
                    }
                } catch let error as ImagePrepError {
                    reply = .failed(kind: error.kind, message: error.description, stage: error.stage)
                } catch {
                    reply = .failed(kind: .corrupt, message: "\(error)", stage: nil)
                }
                try channel.send(reply, payload: output)
            } catch {
                return 74
            }
        }
    }

    /// The soft RLIMIT_DATA for the next file: allocations past it fail (C decoders report it, Swift
    /// traps), so a picture whose decoded size its header did not admit fails alone.
    private static func setDataLimit(_ bytes: Int?) {
        var limit = rlimit()
        guard getrlimit(RLIMIT_DATA_VALUE, &limit) == 0 else { return }
        limit.rlim_cur = bytes.map { min(rlim_t($0), limit.rlim_max) } ?? limit.rlim_max
        setrlimit(RLIMIT_DATA_VALUE, &limit)
    }
}

/// Glibc's RLIMIT_DATA is an enum case that Swift imports with its own type; setrlimit takes the raw value.
private let RLIMIT_DATA_VALUE = __rlimit_resource_t(RLIMIT_DATA.rawValue)
