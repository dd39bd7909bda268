import Foundation
import Testing
@testable import ImagePrep

/// A JPEG-like size curve: falls smoothly with the quantiser scale, steeper near the top.
private func photoCurve(base: Double, exponent: Double) -> (Int) -> Int {
    { q in Int(base * pow(SizeModel.jpeg.scale(q), -exponent) * (1 + 0.002 * Double(q % 3))) }
}

private func run(_ size: @escaping (Int) -> Int, budget: Int, floor: Int = 40, ceiling: Int = 95,
                 strategy: SearchStrategy = .binary) -> (SearchResult, [Int]) {
    var tried: [Int] = []
    let result = searchQuality(floor: floor, ceiling: ceiling, budget: budget, strategy: strategy, model: .jpeg) { q in
        tried.append(q)
        return [UInt8](repeating: 0, count: size(q))
    }
    return (result, tried)
}

@Suite struct QualitySearchTests {
    @Test func binaryFindsTheHighestQualityThatFits() {
        let size = photoCurve(base: 400_000, exponent: 0.8)
        for budget in stride(from: 300_000, through: 3_000_000, by: 37_000) {
            let (result, tried) = run(size, budget: budget)
            #expect(Set(tried).count == tried.count, "a quality was encoded twice")
            guard let fit = result.fit else {
                #expect(size(40) > budget)
                continue
            }
            #expect(fit.bytes.count <= budget)
            #expect(fit.bytes.count == size(fit.quality))
            if fit.quality < 95 { #expect(size(fit.quality + 1) > budget, "q+1 also fits at budget \(budget)") }
        }
    }

    @Test func binaryNeedsFewEncodesOnSmoothCurves() {
        var total = 0, runs = 0
        for exponent in [0.4, 0.5, 0.6, 0.7] {  // the range measured on corpus photos
            let size = photoCurve(base: 300_000, exponent: exponent)
            for budget in stride(from: size(50), through: size(94), by: max(1, (size(94) - size(50)) / 25)) {
                total += run(size, budget: budget).0.encodes
                runs += 1
            }
        }
        let average = Double(total) / Double(runs)
        print("binary search: \(String(format: "%.2f", average)) encodes per image on \(runs) smooth curves")
        #expect(average <= 4.0)
    }

    @Test func nonMonotonicCurveNeverOvershoots() {
        // A bump like a 4:2:0 → 4:4:4 switch at 90, plus jitter.
        let size: (Int) -> Int = { q in 200_000 + q * 8_000 + (q >= 90 ? 150_000 : 0) - (q % 4 == 0 ? 30_000 : 0) }
        for budget in stride(from: 500_000, through: 1_300_000, by: 9_000) {
            let (result, _) = run(size, budget: budget)
            if let fit = result.fit {
                #expect(fit.bytes.count <= budget)
                if fit.quality < 95 { #expect(size(fit.quality + 1) > budget) }
            }
        }
    }

    @Test func ceilingThatFitsTakesOneEncode() {
        let (result, tried) = run({ _ in 1000 }, budget: 5000)
        #expect(result.fit?.quality == 95)
        #expect(tried == [95])
    }

    @Test func nothingFitsReportsTheSmallestSize() {
        let size = photoCurve(base: 900_000, exponent: 0.8)
        let (result, tried) = run(size, budget: 10_000)
        #expect(result.fit == nil)
        #expect(tried.contains(40))
        #expect(result.smallestSize == size(40))
    }

    @Test func stepSearchGoesDownFromTheCeiling() {
        let size: (Int) -> Int = { q in q * 10_000 }
        let (result, tried) = run(size, budget: 720_000, ceiling: 90, strategy: .step(5))
        #expect(tried == [90, 85, 80, 75, 70])
        #expect(result.fit?.quality == 70)
        let (floorResult, floorTried) = run(size, budget: 10, floor: 42, ceiling: 50, strategy: .step(5))
        #expect(floorTried == [50, 45, 42])
        #expect(floorResult.fit == nil)
    }

    /// AVIF qualities share libheif's 64 cq-levels: one encode measures a whole level, and the answer is
    /// the highest quality of the highest level that fits.
    @Test func qualitiesWithTheSameSettingCostOneEncode() {
        let model = SizeModel.avif
        let size: (Int) -> Int = { q in 20_000 * Int(pow(1.06, Double(64 - ((100 - q) * 63 + 50) / 100))) }
        for budget in stride(from: 100_000, through: 2_000_000, by: 50_000) {
            var tried: [Int] = []
            let result = searchQuality(floor: 40, ceiling: 95, budget: budget, strategy: .binary, model: model) { q in
                tried.append(q)
                return [UInt8](repeating: 0, count: size(q))
            }
            let levels = tried.map { model.sameSetting(as: $0) }
            #expect(Set(levels.map(\.lowerBound)).count == tried.count, "a level was encoded twice: \(tried)")
            guard let fit = result.fit else { continue }
            #expect(size(fit.quality) <= budget)
            if fit.quality < 95 { #expect(size(fit.quality + 1) > budget, "q+1 fits at \(budget)") }
            #expect(fit.quality == model.sameSetting(as: fit.quality).upperBound || fit.quality == 95)
        }
    }

    /// Hints that predict the curve well (a probe's) put the first trial next to the answer.
    @Test func goodHintsFinishInTwoOrThreeEncodes() {
        let size = photoCurve(base: 300_000, exponent: 0.6)
        var total = 0, runs = 0
        for budget in stride(from: size(45), through: size(90), by: (size(90) - size(45)) / 20) {
            let hints = Dictionary(uniqueKeysWithValues: [50, 60, 70, 80, 90].map { ($0, Int(Double(size($0)) * 1.03)) })
            let result = searchQuality(floor: 40, ceiling: 95, budget: budget, strategy: .binary, model: .jpeg, hints: hints) { q in
                [UInt8](repeating: 0, count: size(q))
            }
            #expect(result.fit != nil)
            if let fit = result.fit, fit.quality < 95 { #expect(size(fit.quality + 1) > budget) }
            total += result.encodes
            runs += 1
        }
        #expect(Double(total) / Double(runs) <= 3, "\(Double(total) / Double(runs)) encodes on average")
    }

    /// Two lanes: a round encodes the predicted boundary and, ahead, the quality across it; a later
    /// round that asks for that quality uses those bytes instead of encoding again.
    @Test func twoLanesCloseTheBracketInFewerRounds() {
        let size = photoCurve(base: 400_000, exponent: 0.6)
        for budget in stride(from: 350_000, through: 2_500_000, by: 97_000) {
            var rounds = 0
            let result = searchQuality(floor: 40, ceiling: 95, budget: budget, strategy: .binary, model: .jpeg, lanes: 2) { qualities in
                rounds += 1
                #expect(qualities.count <= 2 && Set(qualities).count == qualities.count)
                return qualities.map { [UInt8](repeating: 0, count: size($0)) }
            }
            guard let fit = result.fit else { continue }
            #expect(size(fit.quality) <= budget)
            if fit.quality < 95 { #expect(size(fit.quality + 1) > budget) }
            #expect(rounds <= 5, "\(rounds) rounds at \(budget)")
        }
    }

    /// Idle cores decide the lanes, so they must not decide the answer: with sizes that are not monotonic
    /// in quality (real encoders' are not), one, two and four lanes choose the same quality and bytes, and
    /// learn the same sizes, for every budget and every size model.
    @Test(arguments: [SizeModel.jpeg, .webp, .avif, .heic])
    func theAnswerDoesNotDependOnTheLanes(_ model: SizeModel) {
        var generator = SplitMix64(seed: 11)
        let noise = (0...100).map { _ in 0.85 + Double(generator.next(below: 300)) / 1000 }   // ±15%, fixed per quality
        let size = { (q: Int) in
            let setting = model.sameSetting(as: q).upperBound
            return Int(300_000 * pow(model.scale(setting), model.typicalSlope) / pow(model.scale(80), model.typicalSlope) * noise[setting])
        }
        let hints = [60: size(60) * 11 / 10, 85: size(85) * 9 / 10]
        for budget in stride(from: size(40) / 2, through: size(95) * 2, by: max(1, (size(95) * 2 - size(40) / 2) / 30)) {
            func search(_ lanes: Int) -> SearchResult {
                searchQuality(floor: 30, ceiling: 95, budget: budget, strategy: .binary, model: model, hints: hints,
                              overhead: 2_000, lanes: lanes) { qualities in
                    #expect(qualities.count <= 2)
                    // An encoder gives the same bytes for qualities with the same setting.
                    return qualities.map { q in [UInt8](repeating: UInt8(model.sameSetting(as: q).upperBound), count: size(q)) }
                }
            }
            let one = search(1)
            for lanes in [2, 4] {
                let other = search(lanes)
                #expect(other.fit?.quality == one.fit?.quality, "\(model) at \(budget), \(lanes) lanes")
                let sameBytes = other.fit?.bytes == one.fit?.bytes
                #expect(sameBytes, "\(model) at \(budget), \(lanes) lanes")
                #expect(other.sizes == one.sizes, "\(model) at \(budget), \(lanes) lanes")
            }
        }
    }
}
