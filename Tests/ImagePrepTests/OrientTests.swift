import Testing
import ImagePrep

/// Pixels of a 3x2 image laid out as
///     A B C
///     D E F
/// each with distinct channel values, so any misplaced pixel or channel shows.
private let letters: [Character] = ["A", "B", "C", "D", "E", "F"]

private func pixel(_ letter: Character, channels: Int) -> [UInt8] {
    let id = UInt8(letters.firstIndex(of: letter)! + 1)
    return channels == 4 ? [id, id + 100, id + 200, 10 * id] : [id, id + 100, id + 200]
}

private func image(_ rows: [String], channels: Int) -> PixelBuffer {
    PixelBuffer(width: rows[0].count, height: rows.count, channels: channels,
                pixels: rows.flatMap { $0.flatMap { pixel($0, channels: channels) } })
}

private let source = ["ABC", "DEF"]

/// What an upright viewer must see for each EXIF value, worked out from the EXIF definitions.
private let expected: [(ExifOrientation, [String])] = [
    (.up, ["ABC", "DEF"]),
    (.upMirrored, ["CBA", "FED"]),          // 2: mirror left-right
    (.down, ["FED", "CBA"]),                // 3: rotate 180
    (.downMirrored, ["DEF", "ABC"]),        // 4: mirror top-bottom
    (.leftMirrored, ["AD", "BE", "CF"]),    // 5: transpose: rows become columns
    (.right, ["DA", "EB", "FC"]),           // 6: rotate 90 clockwise: left column, read upwards, on top
    (.rightMirrored, ["FC", "EB", "DA"]),   // 7: transverse: flip across the anti-diagonal
    (.left, ["CF", "BE", "AD"]),            // 8: rotate 90 counter-clockwise: right column, read downwards, on top
]

struct OrientTests {
    @Test(arguments: [3, 4])
    func everyOrientationPlacesEveryPixel(channels: Int) {
        for (orientation, rows) in expected {
            let result = oriented(image(source, channels: channels), orientation)
            #expect(result == image(rows, channels: channels), "orientation \(orientation.rawValue)")
        }
    }

    @Test func dimensionsSwapExactlyForFiveToEight() {
        for orientation in ExifOrientation.allCases {
            let result = oriented(image(source, channels: 3), orientation)
            let swapped = orientation.rawValue >= 5
            #expect(result.width == (swapped ? 2 : 3) && result.height == (swapped ? 3 : 2))
        }
    }

    @Test func clockwiseThenCounterClockwiseIsIdentity() {
        // A larger, non-square noise image crosses the 64-pixel tile boundaries.
        var generator = SystemRandomNumberGenerator()
        let noise = PixelBuffer(width: 131, height: 70, channels: 4,
                                pixels: (0..<(131 * 70 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let turned = oriented(noise, .right)
        #expect(turned.width == 70 && turned.height == 131)
        #expect(turned != noise)
        #expect(oriented(turned, .left) == noise)
        #expect(oriented(oriented(noise, .down), .down) == noise)
    }
}
