/// The tool as a whole: its commands' option tables plus the entries that are not batch commands. The one
/// source of the top-level --help, the Markdown reference, the man page and the shell completions.
struct ToolReference {
    let version: String
    let commands: [CommandSpec]

    static let abstract = "prepare images for upload in batch"
    static let shells = ["bash", "zsh", "fish"]

    /// Entries beside the commands: how each is called and what it does.
    static let utilities: [(usage: String, help: String)] = [
        ("imgprep help [COMMAND]", "show the tool's help, or a command's options (the same as COMMAND --help)"),
        ("imgprep help --markdown", "print this reference as Markdown (docs/cli.md)"),
        ("imgprep help --man", "print the man page, imgprep(1), as roff"),
        ("imgprep completions bash|zsh|fish", "print a completion script for the shell"),
        ("imgprep --version", "print imgprep's version and the versions of the libraries in use"),
    ]

    /// Every word that may follow `imgprep` (for completions).
    var firstWords: [String] { commands.map(\.name) + ["help", "completions", "--help", "--version"] }

    var help: String {
        let width = 10
        return """
        imgprep \(version): \(Self.abstract)

        Usage: imgprep COMMAND [options] FILE...

        Commands:
        \(commands.map { "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.abstract }.joined(separator: "\n"))

        Also:
        \(Self.utilities.map { "  " + $0.usage + "\n      " + $0.help }.joined(separator: "\n"))

        Run 'imgprep COMMAND --help' for a command's options, 'imgprep --version' for the libraries in use.

        \(ExitStatus.lines(ExitStatus.batch).joined(separator: "\n"))

        """
    }
}
