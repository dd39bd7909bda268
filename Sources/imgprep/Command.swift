/// A subcommand: its option table (which also drives --help) and how it runs.
protocol Command {
    static var spec: CommandSpec { get }
    init(_ arguments: ParsedArguments) throws
    func run() async -> Int32
}
