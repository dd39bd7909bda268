import Foundation
import ImagePrep

/// imgprep: parse the command line, run one command, exit with its status
/// (0 all good, 1 some file failed, 2 usage error, 128 + the signal's number when interrupted: 130 SIGINT, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT).
let commands: [any Command.Type] = [ConvertCommand.self, CompressCommand.self, InfoCommand.self, CompareCommand.self, ManifestCommand.self]
let version = CodecVersions.imgprep

let reference = ToolReference(version: version, commands: commands.map { $0.spec })

func fail(_ message: String) -> Never {
    StandardStream.error.write(TerminalText.line("imgprep: \(message)") + "\n")
    exit(2)
}

StandardStream.prepareProcess()
StandardErrorQuieter.install()

// From argv's bytes, not CommandLine.arguments, which replaces bytes that are not UTF-8 (see RawPath)
// and is empty when /proc is not mounted.
var arguments = ThisProcess.arguments
guard let first = arguments.first else {
    StandardStream.error.write(reference.help)
    exit(2)
}
switch first {
case WorkerCommand.name:
    exit(WorkerCommand.run())
case "-h", "--help", "help":
    do { StandardStream.output.write(try HelpCommand.run(Array(arguments.dropFirst()), reference)) } catch { fail("\(error)") }
    exit(0)
case "completions":
    do { StandardStream.output.write(try HelpCommand.completions(Array(arguments.dropFirst()), reference)) } catch { fail("\(error)") }
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
// --help, --version and completions work anywhere; a command needs the thread pool, which needs /proc.
guard ThisProcess.procMounted else {
    fail("/proc is not mounted, and Swift's thread pool (libdispatch) reads it; mount it (mount -t proc proc /proc) to run '\(first)'")
}
do {
    let parsed = try ParsedArguments(arguments, spec: commandType.spec)
    if parsed[.help] {
        StandardStream.output.write(HelpFormatter.help(for: commandType.spec))
        exit(0)
    }
    let command = try commandType.init(parsed)
    exit(await command.run())
} catch {
    fail("\(error)")
}
