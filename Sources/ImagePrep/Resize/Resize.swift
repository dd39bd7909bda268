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
func resample(_ source: SampleGrid, span: (x: Double, y: Double), scale: (x: Double, y: Double), shift: (x: Double, y: Double) = (0, 0),
              into output: UnsafeMutablePointer<UInt8>, width: Int, height: Int, threads: Int) {
    // Like libvips (its "gap" of 2), box-average away all but the last 2x-3x of the reduction:
    // far cheaper than a very wide Lanczos kernel and visually the same.
    let boxX = max(1, source.width / (2 * width))
    let boxY = max(1, source.height / (2 * height))
    // The box leaves at least twice the output size on each axis, so Lanczos always runs after it.
    let boxWidth = (source.width + boxX - 1) / boxX, boxHeight = (source.height + boxY - 1) / boxY
    var scratch: UnsafeMutablePointer<UInt8>?
    defer { scratch?.deallocate() }
    var grid = source
    if boxX > 1 || boxY > 1 {
        let shrunk = UnsafeMutablePointer<UInt8>.allocate(capacity: boxWidth * boxHeight * source.channels)
        scratch = shrunk
        boxShrink(source, boxX: boxX, boxY: boxY, into: shrunk, threads: threads)
        grid = SampleGrid(base: shrunk, width: boxWidth, height: boxHeight, channels: source.channels,
                          rowBytes: boxWidth * source.channels)
    }

    // A box-shrunk sample is the mean of `box` source samples, so a shift in source samples is 1/box as many of them.
    let xTaps = FilterTaps(inputSize: grid.width, outputSize: width, scale: scale.x / Double(boxX), span: span.x / Double(boxX),
                           shift: shift.x / Double(boxX))
    let yTaps = FilterTaps(inputSize: grid.height, outputSize: height, scale: scale.y / Double(boxY), span: span.y / Double(boxY),
                           shift: shift.y / Double(boxY))
    let input = SharedPointer(UnsafeMutablePointer(mutating: grid.base)), out = SharedPointer(output)
    let (gridWidth, gridHeight, channels, rowBytes) = (grid.width, grid.height, grid.channels, grid.rowBytes)
    inBands(of: height, threads: threads) { rows in
        lanczosRows(rows, input: SampleGrid(base: input.pointer, width: gridWidth, height: gridHeight,
                                            channels: channels, rowBytes: rowBytes),
                    output: out.pointer, outputWidth: width, xTaps: xTaps, yTaps: yTaps)
    }
}
