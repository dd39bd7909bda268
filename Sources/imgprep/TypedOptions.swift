import ImagePrep

/// Why an option's value was refused: what was expected (the parser's message quotes the token and the
/// option) with, where the token shows what was meant, the spelling that works; or a whole message of the
/// value's own (a shard spec explains itself).
enum InvalidValue: Error {
    case expected(String, hint: String? = nil)
    case message(String)
}

/// How one option's value is read from its token and checked: once, where the option is declared.
struct ValueParser<Value: Sendable>: Sendable {
    let parse: @Sendable (String) throws(InvalidValue) -> Value

    init(_ parse: @escaping @Sendable (String) throws(InvalidValue) -> Value) {
        self.parse = parse
    }

    /// `transform` returns nil for a token it refuses; `expected` says what it takes.
    init(expected: String, _ transform: @escaping @Sendable (String) -> Value?) {
        parse = { text throws(InvalidValue) in
            guard let value = transform(text) else { throw .expected(expected) }
            return value
        }
    }
}

extension ValueParser<Int> {
    static func integer(in range: ClosedRange<Int>) -> ValueParser {
        ValueParser(expected: "an integer from \(range.lowerBound) to \(range.upperBound)") {
            Int($0).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    /// A byte count as users write it (`500KB`, `2GiB`, see ByteSize); `examples` for the message, and
    /// for a size in bits (`1Mb`) the spelling in bytes.
    static func byteSize(_ examples: String) -> ValueParser {
        ValueParser { text throws(InvalidValue) in
            guard let bytes = ByteSize.parse(text) else { throw .expected("a size such as \(examples)", hint: ByteSize.hint(for: text)) }
            return bytes
        }
    }
}

extension ValueParser<String> {
    /// A path or a name, taken as given.
    static let text = ValueParser { text throws(InvalidValue) in text }
}

/// An option or a flag as a command's table lists it.
protocol DeclaredOption: Sendable {
    var spec: OptionSpec { get }
}

/// A typed option key: declared once (names, help, how its value is parsed and checked, see
/// OptionDeclarations.swift); commands list it in their tables and read `arguments[.quality]`, an `Int?`.
struct Option<Value: Sendable>: DeclaredOption {
    let spec: OptionSpec

    init(_ long: String, _ short: Character? = nil, _ valueName: String, _ help: String,
         default defaultValue: String? = nil, values: [String] = [], _ parser: ValueParser<Value>) {
        spec = OptionSpec(long: long, short: short, valueName: valueName, help: help, defaultValue: defaultValue,
                          values: values, parse: { text throws(InvalidValue) in try parser.parse(text) })
    }

    private init(spec: OptionSpec) { self.spec = spec }

    /// The same option, parsed the same way, with the help another command gives it.
    func described(_ help: String, default defaultValue: String? = nil) -> Option {
        var spec = spec
        spec.help = help
        spec.defaultValue = defaultValue
        return Option(spec: spec)
    }
}

/// A typed flag key: present or not (`arguments[.dryRun]`, a Bool).
struct Flag: DeclaredOption {
    let spec: OptionSpec

    init(_ long: String, _ short: Character? = nil, _ help: String) {
        spec = OptionSpec(long: long, short: short, valueName: nil, help: help, defaultValue: nil, parse: nil)
    }

    private init(spec: OptionSpec) { self.spec = spec }

    /// The same flag with the help another command gives it.
    func described(_ help: String) -> Flag {
        var spec = spec
        spec.help = help
        return Flag(spec: spec)
    }
}
