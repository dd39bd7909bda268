import Testing
import ImagePrep

private func filled(width: Int, height: Int, _ colour: [UInt8]) -> PixelBuffer {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * colour.count)
    for _ in 0..<(width * height) { pixels += colour }
    return PixelBuffer(width: width, height: height, channels: colour.count, pixels: pixels)
}

struct ResizeTests {
    @Test(arguments: [
        (4032, 3024, 2048, 2048, 1536),
        (3024, 4032, 2048, 1536, 2048),
        (100, 50, 200, 100, 50),        // never enlarges
        (2048, 1000, 2048, 2048, 1000), // already fits exactly
        (451, 461, 100, 98, 100),       // 451 * 100 / 461 = 97.8
        (6000, 4000, 1024, 1024, 683),  // 682.67
        (6000, 4000, 800, 800, 533),    // 533.33
        (3000, 2000, 1001, 1001, 667),  // 667.33
        (300, 100, 200, 200, 67),       // 66.67
        (5000, 5000, 640, 640, 640),
        (10000, 3, 100, 100, 1),        // short edge never below 1
    ])
    func fittedSizeTable(_ row: (Int, Int, Int, Int, Int)) {
        let size = fittedSize(width: row.0, height: row.1, maxDimension: row.2)
        #expect(size.width == row.3 && size.height == row.4)
    }

    @Test(arguments: [(640, 480, 50, 38), (301, 199, 100, 66), (40, 30, 97, 71)])
    func constantColourStaysExact(_ sizes: (Int, Int, Int, Int)) {
        for colour: [UInt8] in [[12, 200, 77], [0, 255, 128, 255], [90, 30, 250, 140]] {
            let result = resized(filled(width: sizes.0, height: sizes.1, colour), width: sizes.2, height: sizes.3)
            #expect(result == filled(width: sizes.2, height: sizes.3, colour))
        }
    }

    @Test(arguments: [1, 2, 3])
    func outputSizeIsExact(threads: Int) {
        for (w, h, outW, outH) in [(403, 302, 205, 154), (1000, 7, 3, 1), (1, 1, 5, 4), (17, 13, 1, 1), (33, 500, 32, 499)] {
            for channels in [3, 4] {
                let result = resized(filled(width: w, height: h, Array(repeating: 9, count: channels)),
                                     width: outW, height: outH, threads: threads)
                #expect(result.width == outW && result.height == outH && result.channels == channels)
            }
        }
    }

    @Test func horizontalGradientStaysMonotonicAndLinear() {
        let width = 400, outWidth = 100   // 4x: a 2x box pre-shrink, then Lanczos3 over 2x
        let value = { (x: Double) in 255 * x / Double(width - 1) }
        let row = (0..<width).flatMap { x in Array(repeating: UInt8(value(Double(x)).rounded()), count: 3) }
        let gradient = PixelBuffer(width: width, height: 8, channels: 3, pixels: Array((0..<8).map { _ in row }.joined()))
        let result = resized(gradient, width: outWidth, height: 2)
        for y in 0..<2 {
            let reds = (0..<outWidth).map { Int(result.pixels[(y * outWidth + $0) * 3]) }
            #expect(zip(reds, reds.dropFirst()).allSatisfy { $0 <= $1 })
            // Output pixel x covers input [4x, 4x + 4), centred on input 4x + 1.5; away from the edges
            // a symmetric filter reproduces a linear ramp.
            for x in 3..<(outWidth - 3) {
                #expect(abs(Double(reds[x]) - value(4 * Double(x) + 1.5)) <= 1, "x = \(x)")
            }
        }
    }

    @Test(arguments: [(40, 10), (39, 13), (100, 25)])  // the last one has no box pre-shrink
    func transparentColourDoesNotBleed(_ outSize: (Int, Int)) {
        // Left half: fully transparent but coloured red; right half: opaque green.
        let width = 160, height = 40
        var pixels: [UInt8] = []
        for _ in 0..<height {
            for x in 0..<width { pixels += x < width / 2 ? [255, 0, 0, 0] : [0, 255, 0, 255] }
        }
        let result = resized(PixelBuffer(width: width, height: height, channels: 4, pixels: pixels),
                             width: outSize.0, height: outSize.1)
        var partiallyTransparent = 0
        for i in stride(from: 0, to: result.pixels.count, by: 4) where result.pixels[i + 3] > 0 {
            #expect(result.pixels[i] == 0 && result.pixels[i + 1] == 255, "pixel \(i / 4) has red mixed in")
            if result.pixels[i + 3] < 255 { partiallyTransparent += 1 }
        }
        #expect(partiallyTransparent > 0)  // the edge really was blended
    }
}
