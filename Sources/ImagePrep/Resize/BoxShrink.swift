import CImageCodecs

/// Averages `boxX` x `boxY` blocks of `image` into `output` (tightly packed); partial blocks at the
/// right and bottom edges average what they cover; RGBA colour is averaged weighted by alpha, i.e. premultiplied.
func boxShrink(_ image: SampleGrid, boxX: Int, boxY: Int, into output: UnsafeMutablePointer<UInt8>, threads: Int) {
    // A block's sum must not wrap: 32-bit sums (twice the lanes per vector) while the largest possible
    // one fits, 64-bit beyond. A premultiplied sample is up to 255 x 255, so a 6000x6000 RGBA picture
    // shrunk to 8 pixels (750x750 blocks) already needs 64 bits; 64 bits hold any block a 2^33-pixel cap allows.
    let largestSample = image.channels == 4 ? 255 * 255 : 255
    let (largestSum, overflow) = largestSample.multipliedReportingOverflow(by: boxX * boxY)
    if !overflow && largestSum <= Int(UInt32.max) {
        boxShrink(image, boxX: boxX, boxY: boxY, into: output, threads: threads, sum: UInt32.self)
    } else {
        boxShrink(image, boxX: boxX, boxY: boxY, into: output, threads: threads, sum: UInt64.self)
    }
}

/// An accumulator for sums of 8-bit samples.
private protocol BoxSum: FixedWidthInteger, UnsignedInteger, SIMDScalar, Codable, SendableMetatype {}
extension UInt32: BoxSum {}
extension UInt64: BoxSum {}

private func boxShrink<Sum: BoxSum>(_ image: SampleGrid, boxX: Int, boxY: Int, into output: UnsafeMutablePointer<UInt8>,
                                    threads: Int, sum: Sum.Type) {
    let channels = image.channels, inWidth = image.width, inHeight = image.height, rowBytes = image.rowBytes
    let width = (inWidth + boxX - 1) / boxX, height = (inHeight + boxY - 1) / boxY
    let input = SharedPointer(UnsafeMutablePointer(mutating: image.base)), out = SharedPointer(output)
    inBands(of: height, threads: threads) { rows in
        let rowLength = inWidth * channels
        let columnSums = UnsafeMutablePointer<Sum>.allocate(capacity: rowLength)
        defer { columnSums.deallocate() }
        for y in rows {
            let rowCount = min(boxY, inHeight - y * boxY)
            sumColumns(input.pointer + y * boxY * rowBytes, rows: rowCount, rowBytes: rowBytes, length: rowLength,
                       premultiplied: channels == 4, into: columnSums)
            let o = out.pointer + y * width * channels
            switch channels {
            case 4: averageRGBA(columnSums, inWidth: inWidth, boxX: boxX, rows: rowCount, into: o, width: width)
            case 3: averageRGB(columnSums, inWidth: inWidth, boxX: boxX, rows: rowCount, into: o, width: width)
            default: averagePlane(columnSums, inWidth: inWidth, boxX: boxX, rows: rowCount, into: o, width: width)
            }
        }
    }
}

/// Adds `rows` rows element-wise into `sums` (RGBA colour multiplied by its alpha first).
private func sumColumns<Sum: BoxSum>(_ firstRow: UnsafePointer<UInt8>, rows: Int, rowBytes: Int, length: Int,
                                     premultiplied: Bool, into sums: UnsafeMutablePointer<Sum>) {
    sums.initialize(repeating: 0, count: length)
    for r in 0..<rows {
        let row = firstRow + r * rowBytes
        if premultiplied {
            for i in stride(from: 0, to: length, by: 4) {
                let alpha = Sum(row[i + 3])
                sums[i] &+= Sum(row[i]) &* alpha
                sums[i + 1] &+= Sum(row[i + 1]) &* alpha
                sums[i + 2] &+= Sum(row[i + 2]) &* alpha
                sums[i + 3] &+= alpha
            }
        } else {
            // Wrapping adds (no overflow traps) let the compiler vectorize this loop; Sum is wide enough
            // that they never wrap (see boxShrink).
            for i in 0..<length { sums[i] &+= Sum(row[i]) }
        }
    }
}

/// Rounded `sum / divisor` for a sum of at most 255 x divisor: a multiply and shift, far cheaper than
/// a division per sample, exact while 256 x divisor² ≤ 2^56 (blocks up to 2^24 samples); plain division beyond.
private struct RoundedDivision {
    let divisor: UInt64, half: UInt64, magic: UInt64
    init(_ divisor: Int) {
        self.divisor = UInt64(divisor)
        half = UInt64(divisor / 2)
        magic = divisor <= 1 << 24 ? ((1 << 56) + UInt64(divisor) - 1) / UInt64(divisor) : 0
    }
    @inline(__always) func callAsFunction<Sum: BoxSum>(_ sum: Sum) -> UInt8 {
        let rounded = UInt64(sum) &+ half
        return UInt8(truncatingIfNeeded: magic != 0 ? (rounded &* magic) >> 56 : rounded / divisor)
    }
}

private func averagePlane<Sum: BoxSum>(_ sums: UnsafePointer<Sum>, inWidth: Int, boxX: Int, rows: Int,
                                       into out: UnsafeMutablePointer<UInt8>, width: Int) {
    let fullBlock = RoundedDivision(boxX * rows)
    for x in 0..<width {
        let columns = min(boxX, inWidth - x * boxX)
        var sum: Sum = 0
        for c in 0..<columns { sum &+= sums[x * boxX + c] }
        out[x] = columns == boxX ? fullBlock(sum) : RoundedDivision(columns * rows)(sum)
    }
}

private func averageRGB<Sum: BoxSum>(_ sums: UnsafePointer<Sum>, inWidth: Int, boxX: Int, rows: Int,
                                     into out: UnsafeMutablePointer<UInt8>, width: Int) {
    let fullBlock = RoundedDivision(boxX * rows)
    for x in 0..<width {
        let columns = min(boxX, inWidth - x * boxX)
        var r: Sum = 0, g: Sum = 0, b: Sum = 0
        var s = sums + x * boxX * 3
        for _ in 0..<columns {
            r &+= s[0]; g &+= s[1]; b &+= s[2]
            s += 3
        }
        let mean = columns == boxX ? fullBlock : RoundedDivision(columns * rows)
        out[x * 3] = mean(r)
        out[x * 3 + 1] = mean(g)
        out[x * 3 + 2] = mean(b)
    }
}

/// Colour is the alpha-weighted mean (premultiply, average, un-premultiply in one step).
private func averageRGBA<Sum: BoxSum>(_ sums: UnsafePointer<Sum>, inWidth: Int, boxX: Int, rows: Int,
                                      into out: UnsafeMutablePointer<UInt8>, width: Int) {
    for x in 0..<width {
        let columns = min(boxX, inWidth - x * boxX)
        var sum = SIMD4<Sum>()
        var s = sums + x * boxX * 4
        for _ in 0..<columns {
            sum &+= SIMD4(s[0], s[1], s[2], s[3])
            s += 4
        }
        let alpha = sum[3]
        let toColour = alpha == 0 ? 0 : 1 / Float(alpha)
        let o = out + x * 4
        o[0] = UInt8(Float(sum[0]) * toColour + 0.5)
        o[1] = UInt8(Float(sum[1]) * toColour + 0.5)
        o[2] = UInt8(Float(sum[2]) * toColour + 0.5)
        o[3] = RoundedDivision(columns * rows)(alpha)
    }
}
