import ImagePrep

/// The writers' own options (`ImageFormatWriter.options`: `--png-compression`, `--progressive`) as the
/// command line's: declared by each writer in the library, turned here into the Option and Flag entries
/// of the commands that write the format, so parsing, --help, the man page and the completions follow.
enum WriterOptions {
    /// Those of the writers of `formats`, in the registry's order, each name once.
    static func declared(writing formats: [OutputFormat]) -> [any DeclaredOption] {
        declarations(writing: formats).map(option)
    }

    /// What `arguments` gave for them, by name, for `ConversionSettings.formatOptions`.
    static func values(in arguments: ParsedArguments, writing formats: [OutputFormat]) -> FormatOptions {
        var values = FormatOptions()
        for declaration in declarations(writing: formats) {
            switch declaration.kind {
            case .flag:
                if arguments[Flag(declaration.name, nil, declaration.help)] { values[declaration.name] = .flag(true) }
            case .integer:
                values[declaration.name] = arguments[valueOption(declaration)]
            }
        }
        return values
    }

    private static func declarations(writing formats: [OutputFormat]) -> [FormatOptionDeclaration] {
        var seen: Set<String> = []
        return Formats.writers.filter { formats.contains($0.format) }.flatMap(\.options).filter { seen.insert($0.name).inserted }
    }

    private static func option(_ declaration: FormatOptionDeclaration) -> any DeclaredOption {
        switch declaration.kind {
        case .flag: Flag(declaration.name, nil, declaration.help)
        case .integer: valueOption(declaration)
        }
    }

    private static func valueOption(_ declaration: FormatOptionDeclaration) -> Option<FormatOptions.Value> {
        let expected = switch declaration.kind {
        case .flag: "no value"
        case .integer(let range): "an integer from \(range.lowerBound) to \(range.upperBound)"
        }
        return Option(declaration.name, nil, declaration.valueName ?? "VALUE", declaration.help, default: declaration.defaultText,
                      ValueParser(expected: expected) { declaration.value(parsing: $0) })
    }
}
