/// `imgprep help [COMMAND | --markdown | --man]` and `imgprep completions SHELL`: text made from the
/// option tables, on standard output.
enum HelpCommand {
    static func run(_ arguments: [String], _ reference: ToolReference) throws -> String {
        switch arguments.first {
        case nil: return reference.help
        case "--markdown": return MarkdownReference.render(reference)
        case "--man": return ManPage.render(reference)
        case let name?:
            if let spec = reference.commands.first(where: { $0.name == name }) { return HelpFormatter.help(for: spec) }
            let hint = Spelling.nearest(name, among: reference.commands.map(\.name)).map { "did you mean '\($0)'? " } ?? ""
            throw UsageError(description: "no help for '\(name)': not a command or --markdown or --man; \(hint)see 'imgprep --help'")
        }
    }

    static func completions(_ arguments: [String], _ reference: ToolReference) throws -> String {
        switch arguments.first {
        case "bash": return BashCompletion.script(reference)
        case "zsh": return ZshCompletion.script(reference)
        case "fish": return FishCompletion.script(reference)
        default:
            throw UsageError(description: "completions needs a shell: \(ToolReference.shells.joined(separator: ", ")); see 'imgprep --help'")
        }
    }
}
