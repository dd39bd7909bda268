/// How an encoder's output size follows its quality setting, so a budget search can aim its trials:
/// log(size) falls roughly linearly in log(scale(quality)), where the scale is the encoder's quantiser
/// step for that quality, with `typicalSlope` (measured on corpus photos with our encoder settings).
/// Each picture has its own level, and its own slope within some spread: the search measures those.
/// Each lossy format defines its own beside its writer (`SizeModel.jpeg` in Formats/JPEG).
public struct SizeModel: Sendable, Equatable, CustomStringConvertible {
    /// The format it models, for test names and messages.
    public let name: String
    private let scaleAt: @Sendable (Int) -> Double
    private let sameSettingAt: @Sendable (Int) -> ClosedRange<Int>
    /// d log(size) / d log(scale) for a typical photo: the slope used where nothing measured says otherwise
    /// (medians over 18 corpus photos at 1024 pixels, qualities 30-95; photos range over about +-40%).
    let typicalSlope: Double
    /// Bytes of a whole picture per byte of its probe mosaic, per unit of area (ProbeMosaic): the crops'
    /// borders make the mosaic a little denser for block-adaptive codecs. Means over corpus photos (12 for
    /// JPEG and WebP, 5 for AVIF and HEIC) at qualities 50 and 80; spread 3% (JPEG, HEIC) to 6% (AVIF).
    let probeRatio: Double

    /// - Parameters:
    ///   - scale: the scale at a quality in 1...100, positive and falling as quality rises.
    ///   - sameSetting: the qualities in 1...100 that hand the encoder the same setting as one quality.
    init(name: String, scale: @escaping @Sendable (Int) -> Double, sameSetting: @escaping @Sendable (Int) -> ClosedRange<Int>,
         typicalSlope: Double, probeRatio: Double) {
        self.name = name
        scaleAt = scale
        sameSettingAt = sameSetting
        self.typicalSlope = typicalSlope
        self.probeRatio = probeRatio
    }

    /// The scale at `quality`, positive and falling as quality rises.
    func scale(_ quality: Int) -> Double { scaleAt(min(max(quality, 1), 100)) }

    /// The qualities that hand the encoder the same setting as `quality`, and so give the same bytes.
    func sameSetting(as quality: Int) -> ClosedRange<Int> { sameSettingAt(min(max(quality, 1), 100)) }

    public static func == (lhs: SizeModel, rhs: SizeModel) -> Bool { lhs.name == rhs.name }
    public var description: String { name }
}
