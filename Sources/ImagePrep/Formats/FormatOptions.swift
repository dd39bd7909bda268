/// An option that only one output format reads (`--png-compression`, `--progressive`), declared by its
/// writer with no command-line types: the command line turns each into an option of the commands that
/// write the format, so parsing, --help, the man page and the completions follow the declaration.
public struct FormatOptionDeclaration: Sendable {
    public enum Kind: Sendable, Equatable {
        /// Present or not.
        case flag
        /// A whole number within the range.
        case integer(ClosedRange<Int>)
    }

    /// The long option name, also the key in `FormatOptions`.
    public let name: String
    /// The placeholder for the value in help (`N`); nil for a flag.
    public let valueName: String?
    public let help: String
    public let kind: Kind
    /// What is used when the option is absent (a flag: off).
    public let defaultValue: FormatOptions.Value

    public static func flag(_ name: String, help: String) -> FormatOptionDeclaration {
        FormatOptionDeclaration(name: name, valueName: nil, help: help, kind: .flag, defaultValue: .flag(false))
    }

    public static func integer(_ name: String, _ valueName: String, in range: ClosedRange<Int>, default defaultValue: Int,
                               help: String) -> FormatOptionDeclaration {
        FormatOptionDeclaration(name: name, valueName: valueName, help: help, kind: .integer(range), defaultValue: .integer(defaultValue))
    }

    /// The default as help shows it; nil for a flag.
    public var defaultText: String? {
        switch defaultValue {
        case .flag: nil
        case .integer(let value): "\(value)"
        }
    }

    /// `text` as this option's value, or nil when it is not one (outside the range, not a number).
    public func value(parsing text: String) -> FormatOptions.Value? {
        switch kind {
        case .flag: nil
        case .integer(let range): Int(text).flatMap { range.contains($0) ? .integer($0) : nil }
        }
    }
}

/// The values given for the writers' own options (`FormatOptionDeclaration`), by option name. Each
/// format's folder reads its own through typed accessors (an extension of this type there), falling back
/// to the declared default; shared code only carries the value. Part of `ConversionSettings`, so of the
/// cache key: a dictionary, which the key's JSON encodes with sorted keys, the same on every run.
public struct FormatOptions: Sendable, Codable, Equatable {
    public enum Value: Sendable, Codable, Equatable {
        case flag(Bool)
        case integer(Int)
    }

    private var values: [String: Value] = [:]

    public init() {}

    public subscript(name: String) -> Value? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// Whether the flag `declaration` names was given.
    func flag(_ declaration: FormatOptionDeclaration) -> Bool {
        if case .flag(let on) = values[declaration.name] ?? declaration.defaultValue { return on }
        return false
    }

    /// The integer given for `declaration`, else its default (0 only for a declaration of another kind,
    /// which the format's own accessor never asks for).
    func integer(_ declaration: FormatOptionDeclaration) -> Int {
        if case .integer(let value) = values[declaration.name] ?? declaration.defaultValue { return value }
        return 0
    }
}
