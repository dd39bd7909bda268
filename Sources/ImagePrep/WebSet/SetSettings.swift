/// What a web image set makes of each input (`--to` with several formats, `--widths`, `--box`):
/// every width in every format, from one decode and one orientation of the source.
public struct SetSettings: Sendable, Codable {
    /// In the order asked for, each with its quality (the ceiling of a budget search).
    public var formats: [FormatQuality]
    /// Widths asked for, ascending and distinct; nil: one width, the source's (or the box's).
    public var widths: [Int]?
    public var box: BoxSize?
    public var fit: BoxFit = .inside
    public var crop: CropStrategy = .center
    /// `--max-bytes 480:40KB,…`: a budget for the variants of one asked-for width (the batch's
    /// `budget`, if any, is for every other variant).
    public var widthBudgets: [WidthBudget] = []
    public var placeholder: PlaceholderKind = .thumbhash

    public init(formats: [FormatQuality]) { self.formats = formats }

    /// The budget for variants of `width`, as asked for (`fallback`: the batch's).
    func budget(forWidth width: Int?, fallback: ByteBudget?) -> ByteBudget? {
        width.flatMap { width in widthBudgets.first { $0.width == width }?.budget } ?? fallback
    }
}

public struct BoxSize: Sendable, Codable, Equatable {
    public var width: Int, height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

public struct WidthBudget: Sendable, Codable {
    public var width: Int
    public var budget: ByteBudget

    public init(width: Int, budget: ByteBudget) {
        self.width = width
        self.budget = budget
    }
}
