import Foundation
import ImagePrep

/// imgprep: parse the command line, run one command, exit with its status
/// (0 all good, 1 some file failed, 2 usage error, 130/143 interrupted by SIGINT/SIGTERM).
let commands: [any Command.Type] = [ConvertCommand.self, CompressCommand.self, InfoCommand.self]
let version = CodecVersions.imgprep

let toolHelp = """
imgprep \(version): prepare images for upload in batch

Usage: imgprep COMMAND [options] FILE...

Commands:
\(commands.map { "  " + $0.spec.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.spec.abstract }.joined(separator: "\n"))

Run 'imgprep COMMAND --help' for a command's options, 'imgprep --version' for the libraries in use.

\(ExitStatus.lines(ExitStatus.batch).joined(separator: "\n"))

"""

func fail(_ message: String) -> Never {
    StandardStream.error.write(TerminalText.line("imgprep: \(message)") + "\n")
    exit(2)
}

StandardStream.prepareProcess()

// From argv's bytes, not CommandLine.arguments, which replaces bytes that are not UTF-8 (see RawPath).
var arguments = (1..<Int(CommandLine.argc)).map { index in
    CommandLine.unsafeArgv[index].map { RawPath.decode(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? ""
}
guard let first = arguments.first else {
    StandardStream.error.write(toolHelp)
    exit(2)
}
switch first {
case WorkerCommand.name:
    exit(WorkerCommand.run())
case "-h", "--help", "help":
    if arguments.count > 1, let command = commands.first(where: { $0.spec.name == arguments[1] }) {
        StandardStream.output.write(HelpFormatter.help(for: command.spec))
    } else {
        StandardStream.output.write(toolHelp)
    }
    exit(0)
case "--version", "-V":
    StandardStream.output.write("imgprep \(version)\n")
    for library in LibraryVersions.loaded { StandardStream.output.write("\(library.name) \(library.version)\n") }
    exit(0)
default:
    break
}
guard let commandType = commands.first(where: { $0.spec.name == first }) else {
    let hint = Spelling.nearest(first, among: commands.map { $0.spec.name }).map { "did you mean '\($0)'? " } ?? ""
    fail("unknown command '\(first)'; \(hint)see 'imgprep --help'")
}
arguments.removeFirst()
do {
    let parsed = try ParsedArguments(arguments, spec: commandType.spec)
    if parsed.has("help") {
        StandardStream.output.write(HelpFormatter.help(for: commandType.spec))
        exit(0)
    }
    let command = try commandType.init(parsed)
    exit(await command.run())
} catch {
    fail("\(error)")
}
