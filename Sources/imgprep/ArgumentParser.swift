/// One option of a command as its table lists it, its type erased (see TypedOptions.swift for the typed
/// keys). The same table drives parsing and `--help`, so they cannot disagree.
struct OptionSpec: Sendable {
    var long: String
    var short: Character?
    /// The placeholder for the option's value in help (`N`, `DIR`); nil for a flag.
    var valueName: String?
    var help: String
    var defaultValue: String?
    /// The words a shell completion offers for the value (`--to` offers the formats); empty: none.
    var values: [String] = []
    /// Reads the value's token into the option's typed value, or says why not; nil for a flag.
    var parse: (@Sendable (String) throws(InvalidValue) -> any Sendable)?

    /// What a shell should complete after the option.
    enum ValueCompletion: Equatable {
        case none, words([String]), file, directory
    }

    /// Listed values first; otherwise the placeholder says whether a path is wanted (FILE, DIR).
    var completion: ValueCompletion {
        guard let valueName else { return .none }
        if !values.isEmpty { return .words(values) }
        switch valueName {
        case "FILE": return .file
        case "DIR": return .directory
        default: return .none
        }
    }

    /// `-q, --quality` or `--quality`.
    var names: [String] { (short.map { ["-\($0)"] } ?? []) + ["--" + long] }
}

/// Flags that contradict each other: giving both is a usage error naming the two.
enum Conflicts {
    static let pairs: [(Flag, Flag)] = [(.update, .skipExisting), (.json, .quiet), (.quiet, .verbose)]

    /// The pairs whose both flags a command has, by long name.
    static func pairs(in spec: CommandSpec) -> [(String, String)] {
        let names = Set(spec.options.map(\.long))
        return pairs.map { ($0.0.spec.long, $0.1.spec.long) }.filter { names.contains($0.0) && names.contains($0.1) }
    }
}

struct CommandSpec {
    var name: String
    var abstract: String
    var usage: String
    var options: [OptionSpec]
    var examples: [String]
    var discussion: String
    var exitStatus: [(Int, String)]

    init(name: String, abstract: String, usage: String, options: [any DeclaredOption], examples: [String],
         discussion: String = "", exitStatus: [(Int, String)] = ExitStatus.batch) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.options = options.map(\.spec)
        self.examples = examples
        self.discussion = discussion
        self.exitStatus = exitStatus
    }
}

/// What each exit status means, for --help.
enum ExitStatus {
    static let batch = [(0, "no file failed (skips are fine)"), (1, "some file failed"), (2, "usage error")] + signals
    static let info = [(0, "every file was read"), (1, "some file could not be read"), (2, "usage error")] + signals
    static let compare = [(0, "the pictures were scored"), (1, "a file could not be read or scored"),
                          (2, "usage error, or the pictures differ in size")]
    /// 128 + the signal's number (SignalWatcher).
    static let signals = [(129, "hung up (SIGHUP)"), (130, "interrupted (SIGINT, Ctrl-C)"), (131, "quit (SIGQUIT)"),
                          (143, "terminated (SIGTERM)")]

    static func lines(_ statuses: [(Int, String)]) -> [String] {
        ["Exit status:"] + statuses.map { "  " + String($0.0).padding(toLength: 5, withPad: " ", startingAt: 0) + $0.1 }
    }
}

/// A usage mistake: names the bad token and points to help. Exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// The parsed command line: each option's value parsed and checked by its declaration (the last one
/// given wins), the flags given, and the positionals. Read it with the typed keys: `arguments[.quality]`.
struct ParsedArguments {
    private var values: [String: any Sendable] = [:]
    private var flags: Set<String> = []
    private(set) var positionals: [String] = []
    let command: String

    init(_ arguments: [String], spec: CommandSpec) throws {
        command = spec.name
        var texts: [String: String] = [:]
        var index = 0
        var optionsEnded = false
        func lookup(_ token: String) throws -> OptionSpec {
            let found: OptionSpec?
            if token.hasPrefix("--") {
                found = spec.options.first { $0.long == String(token.dropFirst(2)) }
            } else {
                found = spec.options.first { $0.short.map { "-\($0)" } == token }
            }
            guard let found else {
                let nearest = token.hasPrefix("--") ? Spelling.nearest(String(token.dropFirst(2)), among: spec.options.map(\.long)) : nil
                let hint = nearest.map { "did you mean --\($0)? " } ?? ""
                throw UsageError(description: "unknown option '\(token)' for '\(spec.name)'; \(hint)see 'imgprep \(spec.name) --help'")
            }
            return found
        }
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                positionals.append(token)
                continue
            }
            if token == "--" { optionsEnded = true; continue }
            var name = token, inlineValue: String?
            if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
                name = String(token[..<equals])
                inlineValue = String(token[token.index(after: equals)...])
            } else if !token.hasPrefix("--"), token.count > 2 {
                // -j4 or -o out/: a short option with its value attached; or a bundle of short flags (-r0).
                let first = try lookup(String(token.prefix(2)))
                if first.valueName != nil {
                    name = String(token.prefix(2))
                    inlineValue = String(token.dropFirst(2))
                } else {
                    for letter in token.dropFirst() {
                        let option = try lookup("-\(letter)")
                        guard option.valueName == nil else {
                            throw UsageError(description: "option '-\(letter)' in '\(token)' needs a value; give it separately; see 'imgprep \(spec.name) --help'")
                        }
                        flags.insert(option.long)
                    }
                    continue
                }
            }
            let option = try lookup(name)
            if option.valueName == nil {
                guard inlineValue == nil else {
                    throw UsageError(description: "option '\(name)' takes no value (got '\(token)'); see 'imgprep \(spec.name) --help'")
                }
                flags.insert(option.long)
                continue
            }
            if let inlineValue {
                texts[option.long] = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(description: "option '\(name)' needs a value (\(option.valueName ?? "a value")); see 'imgprep \(spec.name) --help'")
                }
                texts[option.long] = arguments[index]
                index += 1
            }
        }
        for (first, second) in Conflicts.pairs(in: spec) where flags.contains(first) && flags.contains(second) {
            throw UsageError(description: "--\(first) and --\(second) cannot be used together; see 'imgprep \(spec.name) --help'")
        }
        // In the table's order, so the first bad value reported is the same whatever the order given.
        for option in spec.options {
            guard let text = texts[option.long], let parse = option.parse else { continue }
            do {
                values[option.long] = try parse(text)
            } catch {
                switch error {
                case .expected(let what, let hint):
                    // As for a mistyped option: "...; did you mean 'webp'? see ...", "...; for bytes write 1MB; see ...".
                    let advice = (hint ?? Self.nearestValue(to: text, of: option)).map { "; \($0)" + ($0.hasSuffix("?") ? " " : "; ") } ?? "; "
                    throw UsageError(description: "invalid value '\(text)' for '--\(option.long)': expected \(what)\(advice)see 'imgprep \(spec.name) --help'")
                case .message(let message):
                    throw UsageError(description: "\(message); see 'imgprep \(spec.name) --help'")
                }
            }
        }
    }

    /// "did you mean 'webp'?" for a mistyped listed value (`--to wepb`), or for the first mistyped name
    /// of a list (`--to avif,wepb`); names the option's parser takes on their own (`jpg`) are not typos.
    private static func nearestValue(to text: String, of option: OptionSpec) -> String? {
        guard !option.values.isEmpty else { return nil }
        for piece in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if (try? option.parse?(piece)) != nil { continue }
            if let nearest = Spelling.nearest(piece, among: option.values) { return "did you mean '\(nearest)'?" }
        }
        return nil
    }

    /// The option's value, nil when it was not given (or the command does not take it).
    subscript<Value>(_ option: Option<Value>) -> Value? {
        guard let value = values[option.spec.long] else { return nil }
        // Every declaration of a long name has one value type (Option.described keeps it), so this holds.
        guard let typed = value as? Value else {
            preconditionFailure("--\(option.spec.long) is read as \(Value.self) but '\(command)' declares it otherwise")
        }
        return typed
    }

    /// Whether the flag was given.
    subscript(_ flag: Flag) -> Bool { flags.contains(flag.spec.long) }
}

/// Suggestions for mistyped names.
enum Spelling {
    /// The candidate closest to `word` by edit distance, when it is close enough to be a typo (at most a
    /// third of the word's letters, and 3) and no other candidate is as close.
    static func nearest(_ word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { (candidate: $0, distance: distance(word.lowercased(), $0)) }.sorted { $0.distance < $1.distance }
        guard let best = scored.first, best.distance <= min(3, max(1, word.count / 3)),
              scored.dropFirst().first?.distance != best.distance else { return nil }
        return best.candidate
    }

    /// Edit distance (optimal string alignment): inserting, deleting or changing a character, or swapping
    /// two neighbours (`wepb` for `webp`, the commonest typo), each count 1.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var beforePrevious: [Int] = [], previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            beforePrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}

enum HelpFormatter {
    static func help(for spec: CommandSpec) -> String {
        var lines = ["imgprep \(spec.name): \(spec.abstract)", "", "Usage: \(spec.usage)"]
        if !spec.discussion.isEmpty { lines += ["", spec.discussion] }
        lines += ["", "Options:"]
        let labels = spec.options.map(label)
        let width = min((labels.map(\.count).max() ?? 0) + 2, 34)
        for (option, label) in zip(spec.options, labels) {
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            let padded = label.count + 2 <= width ? label.padding(toLength: width, withPad: " ", startingAt: 0)
                                                  : label + "\n" + String(repeating: " ", count: width + 2)
            lines.append("  " + padded + help)
        }
        let conflicts = Conflicts.pairs(in: spec)
        if !conflicts.isEmpty {
            lines += ["", "Not together: " + conflicts.map { "--\($0.0) with --\($0.1)" }.joined(separator: ", ")]
        }
        if !spec.examples.isEmpty { lines += ["", "Examples:"] + spec.examples.map { "  " + $0 } }
        lines += [""] + ExitStatus.lines(spec.exitStatus)
        return lines.joined(separator: "\n") + "\n"
    }

    static func label(_ option: OptionSpec) -> String {
        let names = (option.short.map { "-\($0), " } ?? "    ") + "--" + option.long
        return option.valueName.map { names + " " + $0 } ?? names
    }
}

import Foundation
