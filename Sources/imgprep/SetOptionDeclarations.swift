import ImagePrep

// The options of a web image set (convert): several outputs per input, their names, boxes and the manifest.

extension Option<[Int]> {
    static let widths = Option("widths", nil, "LIST", "make every width of the comma-separated LIST (480,960,1920) in every --to format; widths over the source's are not made and the source's own is added",
                               ValueParser(expected: "a comma-separated list of widths from 1 to 100000") { text in
        let widths = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !widths.isEmpty, widths.allSatisfy({ $0.map { (1...100_000).contains($0) } == true }) else { return nil }
        return Array(Set(widths.compactMap { $0 })).sorted()
    })
}

extension Option<String> {
    static let name = Option("name", nil, "TEMPLATE", "output names of a set: {name} (the input's stem), {width}, {height}, {ext}, {hash} (10 hex digits of the output's SHA-256), {dir} (the input's folder under its -r root)",
                             default: "\(SetNaming.withWidths) with --widths, else \(SetNaming.withoutWidths)", .text)
    static let manifest = Option("manifest", nil, "FILE", "write a JSON manifest of every set (sizes, variants, colour, placeholder, alt, <picture> markup) to FILE", .text)
    static let sizes = Option("sizes", nil, "TEXT", "the sizes attribute of the manifest's markup", default: "100vw", .text)
    static let baseURL = Option("base-url", nil, "URL", "prefix of the manifest's URLs (the variants' paths relative to the manifest)", .text)
}

extension Option<BoxSize> {
    static let box = Option("box", nil, "WxH", "make outputs of this box's size and aspect (with --widths: each width keeps the aspect), as --fit says",
                            ValueParser(expected: "WIDTHxHEIGHT such as 1200x630") { text in
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...100_000).contains(width), (1...100_000).contains(height) else { return nil }
        return BoxSize(width: width, height: height)
    })
}

extension Option<BoxFit> {
    static let fit = Option("fit", nil, "MODE", "with --box: inside (within the box), cover (fill it and crop), contain (fit and pad with --background) or fill (stretch)",
                            default: "inside", values: BoxFit.allCases.map(\.rawValue),
                            ValueParser(expected: "inside, cover, contain or fill") { BoxFit(rawValue: $0.lowercased()) })
}

extension Option<CropStrategy> {
    static let crop = Option("crop", nil, "MODE", "with --fit cover, where the box goes: center, attention (where people look), entropy (the busiest part) or X%,Y% (a focal point)",
                             default: "center", values: ["center", "attention", "entropy"],
                             ValueParser(expected: "center, attention, entropy or X%,Y%") { CropStrategy(parsing: $0) })
}

extension Option<PlaceholderKind> {
    static let placeholder = Option("placeholder", nil, "KIND", "the manifest's placeholder: thumbhash, blurhash, lqip (a tiny WebP data: URI) or none",
                                    default: "thumbhash", values: PlaceholderKind.allCases.map(\.rawValue),
                                    ValueParser(expected: "thumbhash, blurhash, lqip or none") { PlaceholderKind(rawValue: $0.lowercased()) })
}

/// `--max-bytes`: one budget for every output, and per width of a set (`480:40KB,960:120KB`).
struct BudgetChoice: Sendable {
    var all: ByteBudget?
    var perWidth: [WidthBudget] = []

    init?(parsing text: String) {
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            guard let size = ByteSize.parseWithFamily(String(pieces.last ?? "").trimmingCharacters(in: .whitespaces)), size.bytes > 0 else { return nil }
            let budget = ByteBudget(maxBytes: size.bytes, family: size.family)
            switch pieces.count {
            case 1 where all == nil: all = budget
            case 2:
                guard let width = Int(pieces[0].trimmingCharacters(in: .whitespaces)), width > 0,
                      !perWidth.contains(where: { $0.width == width }) else { return nil }
                perWidth.append(WidthBudget(width: width, budget: budget))
            default: return nil
            }
        }
    }
}
