import CImageCodecs
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Size whose long edge is exactly `maxDimension` with the aspect ratio kept (short edge rounded, at least 1); never enlarges.
public func fittedSize(width: Int, height: Int, maxDimension: Int) -> (width: Int, height: Int) {
    precondition(width > 0 && height > 0 && maxDimension > 0, "sizes must be positive")
    let longEdge = max(width, height)
    if longEdge <= maxDimension { return (width, height) }
    // Integer round-half-up of edge * maxDimension / longEdge: the same short edge vipsthumbnail picks.
    func fit(_ edge: Int) -> Int { max(1, (2 * edge * maxDimension + longEdge) / (2 * longEdge)) }
    return (fit(width), fit(height))
}

/// Resamples `image` to exactly `width` x `height` the way libvips' vips_resize does: an integer box
/// pre-shrink, then separable Lanczos3 on gamma-encoded values (alpha premultiplied); `threads` > 1
/// splits the work into bands of rows.
public func resized(_ image: PixelBuffer, width: Int, height: Int, threads: Int = 1) -> PixelBuffer {
    precondition(width > 0 && height > 0, "output size must be positive")
    let scale = exactScale(from: (image.width, image.height), to: (width, height))
    let pixels = [UInt8](unsafeUninitializedCapacity: width * height * image.channels) { out, count in
        image.pixels.withUnsafeBufferPointer { src in
            let source = SampleGrid(base: src.baseAddress!, width: image.width, height: image.height,
                                    channels: image.channels, rowBytes: image.rowBytes)
            resample(source, span: (Double(image.width), Double(image.height)), scale: scale,
                     into: out.baseAddress!, width: width, height: height, threads: threads)
        }
        count = width * height * image.channels
    }
    return PixelBuffer(width: width, height: height, channels: image.channels, pixels: pixels)
}

/// Input pixels per output pixel on each axis. A size from fittedSize has a rounded short edge;
/// scaling both axes by the long edge's exact factor (centred, as libvips does) keeps the aspect
/// ratio exact instead of stretching by the rounding.
func exactScale(from input: (width: Int, height: Int), to output: (width: Int, height: Int)) -> (x: Double, y: Double) {
    var x = Double(input.width) / Double(output.width), y = Double(input.height) / Double(output.height)
    if output.width >= output.height, Int((Double(input.height) / x).rounded()) == output.height {
        y = x
    } else if output.height > output.width, Int((Double(input.width) / y).rounded()) == output.width {
        x = y
    }
    return (x, y)
}

/// 8-bit samples in memory: `channels` interleaved per pixel (1 for a Y'CbCr plane), rows `rowBytes` apart.
struct SampleGrid {
    let base: UnsafePointer<UInt8>
    let width: Int, height: Int, channels: Int, rowBytes: Int
}

/// Writes `source` resampled to `width` x `height` into `output` (tightly packed rows). `span` is the
/// extent of the picture in source pixels and `scale` source pixels per output pixel; both may be
/// fractional (a 4:2:0 chroma plane of an odd-sized picture covers half a sample less than it holds).
func resample(_ source: SampleGrid, span: (x: Double, y: Double), scale: (x: Double, y: Double),
              into output: UnsafeMutablePointer<UInt8>, width: Int, height: Int, threads: Int) {
    // Like libvips (its "gap" of 2), box-average away all but the last 2x-3x of the reduction:
    // far cheaper than a very wide Lanczos kernel and visually the same.
    let boxX = max(1, source.width / (2 * width))
    let boxY = max(1, source.height / (2 * height))
    let boxWidth = (source.width + boxX - 1) / boxX, boxHeight = (source.height + boxY - 1) / boxY
    let shrunkInPlace = (boxX > 1 || boxY > 1) && boxWidth == width && boxHeight == height
    var scratch: UnsafeMutablePointer<UInt8>?
    defer { scratch?.deallocate() }
    var grid = source
    if boxX > 1 || boxY > 1 {
        let shrunk = shrunkInPlace ? output : UnsafeMutablePointer<UInt8>.allocate(capacity: boxWidth * boxHeight * source.channels)
        if !shrunkInPlace { scratch = shrunk }
        boxShrink(source, boxX: boxX, boxY: boxY, into: shrunk, threads: threads)
        grid = SampleGrid(base: shrunk, width: boxWidth, height: boxHeight, channels: source.channels,
                          rowBytes: boxWidth * source.channels)
    }
    if shrunkInPlace { return }

    let xTaps = FilterTaps(inputSize: grid.width, outputSize: width, scale: scale.x / Double(boxX), span: span.x / Double(boxX))
    let yTaps = FilterTaps(inputSize: grid.height, outputSize: height, scale: scale.y / Double(boxY), span: span.y / Double(boxY))
    let input = SharedPointer(UnsafeMutablePointer(mutating: grid.base)), out = SharedPointer(output)
    let (gridWidth, gridHeight, channels, rowBytes) = (grid.width, grid.height, grid.channels, grid.rowBytes)
    inBands(of: height, threads: threads) { rows in
        lanczosRows(rows, input: SampleGrid(base: input.pointer, width: gridWidth, height: gridHeight,
                                            channels: channels, rowBytes: rowBytes),
                    output: out.pointer, outputWidth: width, xTaps: xTaps, yTaps: yTaps)
    }
}

/// Lanczos3 weights for one axis: output pixel `i` is the weighted sum of input pixels
/// `starts[i] ..< starts[i] + count` with `weights[i * stride ..< i * stride + count]`; the weights
/// up to the next `stride` are 0, so a loop may take them 8 at a time.
private struct FilterTaps: Sendable {
    let count: Int
    let stride: Int
    let starts: [Int]
    let weights: [Float]

    /// `scale` is input pixels per output pixel and `span` the input extent being mapped, both
    /// exact (the box pre-shrink's rounded-up `inputSize` is not).
    init(inputSize: Int, outputSize: Int, scale: Double, span: Double) {
        // When reducing, the kernel is stretched so it spans 3 output pixels each side.
        let stretch = max(scale, 1)
        let support = 3 * stretch
        let count = min(2 * Int(support.rounded(.up)) + 1, inputSize)
        var starts = [Int](repeating: 0, count: outputSize)
        let stride = (count + 7) / 8 * 8
        var weights = [Float](repeating: 0, count: outputSize * stride)
        var window = [Double](repeating: 0, count: count)
        for i in 0..<outputSize {
            // Output pixel i covers input [i * scale, (i + 1) * scale), shifted so that the output
            // and the input span share their centre; `centre` is in input pixel-index units.
            let centre = (Double(i) + 0.5) * scale - 0.5 - (Double(outputSize) * scale - span) / 2
            let start = min(max(Int(centre.rounded(.down)) - count / 2, 0), inputSize - count)
            for k in window.indices { window[k] = 0 }
            var sum = 0.0
            let first = Int((centre - support).rounded(.down)) + 1
            let last = Int((centre + support).rounded(.up)) - 1
            for p in first...last {
                let w = lanczos3((Double(p) - centre) / stretch)
                // Taps beyond the edge repeat the edge pixel (libvips 8.14 extends by copying).
                window[min(max(p, 0), inputSize - 1) - start] += w
                sum += w
            }
            starts[i] = start
            for k in 0..<count { weights[i * stride + k] = Float(window[k] / sum) }
        }
        self.count = count
        self.stride = stride
        self.starts = starts
        self.weights = weights
    }
}

private func lanczos3(_ x: Double) -> Double {
    if x == 0 { return 1 }
    if abs(x) >= 3 { return 0 }
    let px = Double.pi * x
    return 3 * sin(px) * sin(px / 3) / (px * px)
}

/// Produces output rows `rows`: for each, a vertical pass over the contributing input rows into a
/// float row (which stays in cache), then a horizontal pass from that row into the output.
private func lanczosRows(_ rows: Range<Int>, input: SampleGrid, output: UnsafeMutablePointer<UInt8>, outputWidth: Int,
                         xTaps: FilterTaps, yTaps: FilterTaps) {
    let channels = input.channels, rowLength = input.width * channels
    // Spare zeros past the row: the horizontal passes load 4 floats at a time (an RGB pixel, or 4 taps).
    let line = UnsafeMutablePointer<Float>.allocate(capacity: rowLength + xTaps.stride)
    defer { line.deallocate() }
    (line + rowLength).initialize(repeating: 0, count: xTaps.stride)
    xTaps.weights.withUnsafeBufferPointer { xWeights in
        yTaps.weights.withUnsafeBufferPointer { yWeights in
            xTaps.starts.withUnsafeBufferPointer { xStarts in
                for y in rows {
                    let firstRow = input.base + yTaps.starts[y] * input.rowBytes
                    let weights = yWeights.baseAddress! + y * yTaps.stride
                    if channels == 4 {
                        verticalPremultiplied(firstRow, rowBytes: input.rowBytes, length: rowLength, weights: weights,
                                              count: yTaps.count, into: line)
                    } else {
                        vertical(firstRow, rowBytes: input.rowBytes, length: rowLength, weights: weights,
                                 count: yTaps.count, into: line)
                    }
                    let o = output + y * outputWidth * channels
                    if channels == 1 {
                        horizontalPlane(line, into: o, width: outputWidth, starts: xStarts.baseAddress!,
                                        weights: xWeights.baseAddress!, stride: xTaps.stride)
                    } else {
                        horizontal(line, channels: channels, into: o, width: outputWidth,
                                   starts: xStarts.baseAddress!, weights: xWeights.baseAddress!, count: xTaps.count,
                                   stride: xTaps.stride)
                    }
                }
            }
        }
    }
}

/// `line[i] = Σ weights[k] * row_k[i]` (in C, for AVX2 where the CPU has it).
private func vertical(_ firstRow: UnsafePointer<UInt8>, rowBytes: Int, length: Int, weights: UnsafePointer<Float>,
                      count: Int, into line: UnsafeMutablePointer<Float>) {
    cic_vertical_taps(firstRow, rowBytes, length, weights, Int32(count), line)
}

/// Like `vertical` for RGBA, with colour premultiplied by alpha (0...255) so transparent pixels carry no colour.
private func verticalPremultiplied(_ firstRow: UnsafePointer<UInt8>, rowBytes: Int, length: Int,
                                   weights: UnsafePointer<Float>, count: Int, into line: UnsafeMutablePointer<Float>) {
    for i in 0..<length { line[i] = 0 }
    for k in 0..<count {
        let w = weights[k]
        let row = firstRow + k * rowBytes
        for i in stride(from: 0, to: length, by: 4) {
            let alpha = Float(row[i + 3])
            let wa = w * alpha
            line[i] += wa * Float(row[i])
            line[i + 1] += wa * Float(row[i + 1])
            line[i + 2] += wa * Float(row[i + 2])
            line[i + 3] += wa
        }
    }
}

/// Filters one float row horizontally into 8-bit output pixels (un-premultiplying RGBA).
private func horizontal(_ line: UnsafeMutablePointer<Float>, channels: Int, into out: UnsafeMutablePointer<UInt8>,
                        width: Int, starts: UnsafePointer<Int>, weights: UnsafePointer<Float>, count: Int,
                        stride weightStride: Int) {
    let raw = UnsafeRawPointer(line)
    let stride = channels * MemoryLayout<Float>.stride
    for x in 0..<width {
        var sum = SIMD4<Float>()
        var p = starts[x] * stride
        let w = weights + x * weightStride
        for k in 0..<count {
            // For RGB the 4th lane is the next pixel's red (or the spare float): loaded, never stored.
            sum += w[k] * raw.loadUnaligned(fromByteOffset: p, as: SIMD4<Float>.self)
            p += stride
        }
        let o = out + x * channels
        if channels == 4 {
            let alpha = sum[3]
            let colour = alpha >= 0.5 ? sum / alpha : SIMD4<Float>()
            o[0] = clampedByte(colour[0])
            o[1] = clampedByte(colour[1])
            o[2] = clampedByte(colour[2])
            o[3] = clampedByte(alpha)
        } else {
            o[0] = clampedByte(sum[0])
            o[1] = clampedByte(sum[1])
            o[2] = clampedByte(sum[2])
        }
    }
}

/// `horizontal` for one plane of samples (in C, for AVX2 where the CPU has it).
private func horizontalPlane(_ line: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<UInt8>, width: Int,
                             starts: UnsafePointer<Int>, weights: UnsafePointer<Float>, stride: Int) {
    cic_horizontal_taps(line, starts, weights, Int32(stride), width, out)
}

/// Rounds to nearest and clamps to 0...255 (Lanczos overshoots near edges). Adding 1.5 * 2^23 leaves
/// the rounded value in the low bits of the float: no checked float-to-integer conversion per sample.
@inline(__always)
private func clampedByte(_ v: Float) -> UInt8 {
    UInt8(truncatingIfNeeded: (min(max(v, 0), 255) + 12_582_912).bitPattern)
}

/// Averages `boxX` x `boxY` blocks of `image` into `output` (tightly packed); partial blocks at the
/// right and bottom edges average what they cover; RGBA colour is averaged weighted by alpha, i.e. premultiplied.
private func boxShrink(_ image: SampleGrid, boxX: Int, boxY: Int, into output: UnsafeMutablePointer<UInt8>, threads: Int) {
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

/// Runs `body` over `0..<count` split into `threads` contiguous bands, concurrently when `threads` > 1.
func inBands(of count: Int, threads: Int, _ body: @Sendable (Range<Int>) -> Void) {
    let bands = max(1, min(threads, count))
    if bands == 1 { return body(0..<count) }
    DispatchQueue.concurrentPerform(iterations: bands) { band in
        body(band * count / bands ..< (band + 1) * count / bands)
    }
}

/// A pointer shared by worker threads that write disjoint rows.
struct SharedPointer<Pointee>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Pointee>
    init(_ pointer: UnsafeMutablePointer<Pointee>) { self.pointer = pointer }
}
