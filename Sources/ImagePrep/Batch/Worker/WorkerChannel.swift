import Foundation

/// One message between the batch parent and a worker process: a JSON header and a byte payload (the
/// input file, or the prepared output), each length-prefixed. Lengths are checked before anything is
/// allocated, so a confused peer cannot make the other side allocate without bound.
struct WorkerFrame {
    var header: [UInt8]
    var payload: [UInt8]
}

/// Reads and writes frames on a pipe. Not thread-safe: each end belongs to one thread at a time.
struct WorkerChannel: Sendable {
    let readFD: Int32
    let writeFD: Int32

    /// JSON headers are small; payloads are whole files: inputs are capped long before this, and the
    /// largest output (a 300 MP PNG with alpha, stored) is about 1.2 GB.
    static let maxHeaderBytes = 1 << 24
    static let maxPayloadBytes = 1 << 32

    struct Broken: Error {}

    func send(_ frame: WorkerFrame) throws {
        var prefix = [UInt8]()
        prefix.reserveCapacity(12)
        Self.append(UInt64(frame.header.count), bytes: 4, to: &prefix)
        Self.append(UInt64(frame.payload.count), bytes: 8, to: &prefix)
        try writeAll(prefix)
        try writeAll(frame.header)
        try writeAll(frame.payload)
    }

    func send<Header: Encodable>(_ header: Header, payload: [UInt8] = []) throws {
        try send(WorkerFrame(header: Array(try JSONEncoder().encode(header)), payload: payload))
    }

    /// The next frame, or nil when the other side closed the pipe between frames.
    func receive() throws -> WorkerFrame? {
        guard let prefix = try readExactly(12, endAllowed: true) else { return nil }
        let headerCount = Int(prefix[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let payloadCount = prefix[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard headerCount <= Self.maxHeaderBytes, payloadCount <= UInt64(Self.maxPayloadBytes) else { throw Broken() }
        guard let header = try readExactly(headerCount, endAllowed: false),
              let payload = try readExactly(Int(payloadCount), endAllowed: false) else { throw Broken() }
        return WorkerFrame(header: header, payload: payload)
    }

    func decode<Header: Decodable>(_ type: Header.Type, from frame: WorkerFrame) throws -> Header {
        try JSONDecoder().decode(type, from: Data(frame.header))
    }

    private static func append(_ value: UInt64, bytes: Int, to buffer: inout [UInt8]) {
        for shift in stride(from: 8 * (bytes - 1), through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        guard FileDescriptorIO.writeAll(writeFD, bytes) else { throw Broken() }
    }

    /// Exactly `count` bytes; nil at a clean end of the stream before the first byte when `endAllowed`.
    /// The buffer grows as bytes arrive, so a length that lies costs nothing until the bytes exist.
    private func readExactly(_ count: Int, endAllowed: Bool) throws -> [UInt8]? {
        var result = [UInt8]()
        result.reserveCapacity(min(count, 1 << 24))
        var chunk = [UInt8](repeating: 0, count: min(count, 1 << 20))
        while result.count < count {
            let want = min(chunk.count, count - result.count)
            let got = chunk.withUnsafeMutableBytes { FileDescriptorIO.read(readFD, into: $0.baseAddress, count: want) }
            if got < 0 { throw Broken() }
            if got == 0 {
                if result.isEmpty && endAllowed { return nil }
                throw Broken()
            }
            result += chunk[0..<got]
        }
        return result
    }
}

/// What the parent asks a worker to do with the payload (an input file), within `memoryCeiling` bytes
/// of data.
enum WorkerRequest: Codable {
    /// Run the pipeline on it.
    case prepare(settings: ConversionSettings, scheduling: Scheduling, memoryCeiling: Int?)
    /// Describe it for `info` (headers and metadata, no pixels).
    case inspect(memoryCeiling: Int?)
}

/// What a worker says back: `ready` once when it has started, then for each file the stages as they
/// start and one result.
enum WorkerReply: Codable {
    case ready
    case stage(PipelineStage)
    /// The payload is the output's bytes; `image.bytes` is empty in the header.
    case prepared(image: PreparedImage)
    case inspected(description: ImageDescription)
    /// `stage` is where it failed; nil leaves it to the last stage reported.
    case failed(kind: ImagePrepError.Kind, message: String, stage: PipelineStage?)
}
