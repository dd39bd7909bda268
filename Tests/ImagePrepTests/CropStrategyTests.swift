import Testing
@testable import ImagePrep

struct CropStrategyTests {
    @Test("center, attention, entropy and X%,Y% parse; anything else is nil")
    func parsing() {
        #expect(CropStrategy(parsing: "center") == .center)
        #expect(CropStrategy(parsing: "attention") == .attention)
        #expect(CropStrategy(parsing: "entropy") == .entropy)
        #expect(CropStrategy(parsing: "50%,30%") == .focalPoint(x: 50, y: 30))
        #expect(CropStrategy(parsing: "0%,100%") == .focalPoint(x: 0, y: 100))
        #expect(CropStrategy(parsing: "12.5%,99.75%") == .focalPoint(x: 12.5, y: 99.75))
        for bad in ["", "Center", "centre ", "50%", "50,30", "50%,30", "101%,0%", "-1%,5%", "nan%,5%", "1e2%,5%",
                    "+5%,5%", "5%,5%,5%", ".5%,5%", "5.%,5%", "5%, 5%", "inf%,0%", "%,%", "50%;30%",
                    String(repeating: "9", count: 400) + "%,1%"] {
            #expect(CropStrategy(parsing: bad) == nil, "\(bad)")
        }
    }
}
