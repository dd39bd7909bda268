import CImageCodecs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lanczos3 weights for one axis: output pixel `i` is the weighted sum of input pixels
/// `starts[i] ..< starts[i] + count` with `weights[i * stride ..< i * stride + count]`; the weights
/// up to the next `stride` are 0, so a loop may take them 8 at a time.
struct FilterTaps: Sendable {
    let count: Int
    let stride: Int
    let starts: [Int]
    let weights: [Float]

    /// `scale` is input pixels per output pixel and `span` the input extent being mapped, both
    /// exact (the box pre-shrink's rounded-up `inputSize` is not); `shift` moves every output pixel's
    /// centre by that many input pixels (chroma that does not sit where the mapping assumes).
    init(inputSize: Int, outputSize: Int, scale: Double, span: Double, shift: Double = 0) {
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
            let centre = (Double(i) + 0.5) * scale - 0.5 - (Double(outputSize) * scale - span) / 2 + shift
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
func lanczosRows(_ rows: Range<Int>, input: SampleGrid, output: UnsafeMutablePointer<UInt8>, outputWidth: Int,
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
