/// The names a set's variants get, as far as they are known before its input is read: the planner
/// claims them (two inputs writing one name are refused before either is read).
public struct SetOutputs: Sendable, Equatable {
    public var naming: SetNaming
    public var formats: [OutputFormat]
    /// The widths asked for, or `[nil]` for one variant per format.
    public var widths: [Int?]

    public init(naming: SetNaming, formats: [OutputFormat], widths: [Int]?) {
        self.naming = naming
        self.formats = formats
        self.widths = widths ?? [nil]
    }

    /// Every variant's name with the fields known from the input's path alone filled in.
    public func names(for input: InputPath) -> [String] {
        formats.flatMap { format in
            widths.map { naming.path(input: input.remote?.outputName ?? input.path, root: input.root, format: format, width: $0, height: nil, hash: nil) }
        }
    }

    /// A name with no field left to fill in once the picture is prepared.
    public static func isKnown(_ name: String) -> Bool {
        !["{hash}", "{height}", "{width}"].contains { name.contains($0) }
    }
}
