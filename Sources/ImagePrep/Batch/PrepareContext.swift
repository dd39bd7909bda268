/// What preparing one file is told besides its bytes and settings; none of it changes the bytes.
public struct PrepareContext: Sendable {
    public var scheduling: Scheduling
    /// The memory the file was admitted with: a worker's data ceiling is set from it.
    public var estimate: Int
    /// The gate's hold on that memory; work that may outlive the call (an abandoned in-process
    /// pipeline) holds it too, until it ends. nil without a gate.
    public var ticket: MemoryGate.Ticket?

    public init(scheduling: Scheduling = Scheduling(), estimate: Int = 0, ticket: MemoryGate.Ticket? = nil) {
        self.scheduling = scheduling
        self.estimate = estimate
        self.ticket = ticket
    }
}
