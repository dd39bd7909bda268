/// `imgprep help [COMMAND | --markdown | --man]` and `imgprep completions SHELL`: text made from the
/// option tables, on standard output.
enum HelpCommand {
    /// The whole reference in another form, for `imgprep help`.
    enum Reference: String, CaseIterable {
        case markdown = "--markdown", man = "--man"

        func render(_ reference: ToolReference) -> String {
            switch self {
            case .markdown: MarkdownReference.render(reference)
            case .man: ManPage.render(reference)
            }
        }
    }

    /// What may follow `imgprep help` (for completions).
    static func topics(_ reference: ToolReference) -> [String] {
        reference.commands.map(\.name) + Reference.allCases.map(\.rawValue)
    }

    static func run(_ arguments: [String], _ reference: ToolReference) throws -> String {
        guard let name = arguments.first else { return reference.help }
        guard arguments.count == 1 else {
            throw UsageError(description: "help takes one topic, not \(arguments.count) ('\(arguments.joined(separator: " "))'); see 'imgprep --help'")
        }
        if let form = Reference(rawValue: name) { return form.render(reference) }
        if let spec = reference.commands.first(where: { $0.name == name }) { return HelpFormatter.help(for: spec) }
        let hint = Spelling.nearest(name, among: reference.commands.map(\.name)).map { "did you mean '\($0)'? " } ?? ""
        let forms = Reference.allCases.map(\.rawValue).joined(separator: " or ")
        throw UsageError(description: "no help for '\(name)': not a command or \(forms); \(hint)see 'imgprep --help'")
    }

    static func completions(_ arguments: [String], _ reference: ToolReference) throws -> String {
        guard arguments.count <= 1 else {
            throw UsageError(description: "completions takes one shell, not \(arguments.count) ('\(arguments.joined(separator: " "))'); see 'imgprep --help'")
        }
        switch arguments.first {
        case "bash": return BashCompletion.script(reference)
        case "zsh": return ZshCompletion.script(reference)
        case "fish": return FishCompletion.script(reference)
        default:
            throw UsageError(description: "completions needs a shell: \(ToolReference.shells.joined(separator: ", ")); see 'imgprep --help'")
        }
    }
}
