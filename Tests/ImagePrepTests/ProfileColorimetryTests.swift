import Foundation
import Testing
@testable import ImagePrep

/// The white point, primaries and curve read from matrix/TRC profiles: v4 (with `chad`) and v2 (adapted
/// from their own white), standard and not; and what cannot be stated that way is refused.
struct ProfileColorimetryTests {
    @Test func sRGBV4ProfileIsSRGB() throws {
        let found = try #require(ProfileColorimetry.of(SRGBProfile.bytes))
        #expect(found.white.isNear(ProfileColorimetry.d65) && found.transfer == .sRGB)
        #expect(zip(found.primaries, ProfileColorimetry.sRGBPrimaries).allSatisfy { $0.isNear($1) }, "\(found)")
    }

    /// imgprep's own v2 profiles from nclx code points (a D50 `wtpt`, no `chad`, primaries adapted from
    /// D65): each comes back as the values it was made from.
    @Test(arguments: [(12, 13, "P3"), (1, 1, "sRGB with BT.709's curve"), (9, 8, "BT.2020 linear"), (6, 4, "BT.601 525, gamma 2.2")])
    func synthesizedProfilesComeBack(_ primaries: Int, _ transfer: Int, _ name: String) throws {
        let profile = try #require(ColorProfileSynthesizer.profile(for: NCLXColor(primaries: primaries, transfer: transfer, matrix: 0, fullRange: true)).icc)
        let found = try #require(ProfileColorimetry.of(profile), "\(name)")
        let expected = try #require(ColorProfileSynthesizer.primaries(primaries))
        let chromaticities = [expected.white, expected.red, expected.green, expected.blue].map { ProfileColorimetry.Chromaticity(x: $0.0, y: $0.1) }
        #expect(zip([found.white] + found.primaries, chromaticities).allSatisfy { $0.isNear($1) }, "\(name): \(found)")
        let curve: ProfileColorimetry.Transfer = switch transfer {
        case 13: .sRGB
        case 1: .bt709
        case 8: .linear
        default: .gamma(2.2)
        }
        if case .gamma(let exponent) = found.transfer, case .gamma(let wanted) = curve {
            #expect(abs(exponent - wanted) < 0.01, "\(name): \(found.transfer)")
        } else {
            #expect(found.transfer == curve, "\(name): \(found.transfer)")
        }
    }

    @Test func grayAndBrokenProfilesAreNotDescribed() {
        #expect(ProfileColorimetry.of(PNGProfileWarningTests.profile(colourSpace: "GRAY")) == nil)
        #expect(ProfileColorimetry.of(Array(SRGBProfile.bytes.prefix(200))) == nil)
        #expect(ProfileColorimetry.of([]) == nil)
    }
}
