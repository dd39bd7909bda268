/// Planar pictures are resampled plane by plane with the same geometry as `resized(_:width:height:threads:)`,
/// so they never pass through a full-size interleaved copy.
extension RGBPlanes {
    func resized(width: Int, height: Int, threads: Int) -> RGBPlanes {
        precondition(width > 0 && height > 0, "output size must be positive")
        let scale = exactScale(from: (self.width, self.height), to: (width, height))
        let count = width * height
        let storage = PlaneStorage(count: 3 * count)
        withExtendedLifetime(planes) {
            for (index, plane) in planes.planes.enumerated() {
                resample(plane.grid(width: self.width, height: self.height), span: (Double(self.width), Double(self.height)),
                         scale: scale, into: storage.pointer + index * count, width: width, height: height, threads: threads)
            }
        }
        return RGBPlanes(packed: storage.pointer, width: width, height: height, owner: storage)
    }
}

extension YCbCr420Image {
    /// Luma to the output size, chroma to half of it; chroma ends up filtered rather than repeated, and centred
    /// whatever its siting was (JPEG's and WebP's).
    func resized(width: Int, height: Int, threads: Int) -> YCbCr420Image {
        precondition(width > 0 && height > 0, "output size must be positive")
        let scale = exactScale(from: (self.width, self.height), to: (width, height))
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        let lumaCount = width * height, chromaCount = chromaWidth * chromaHeight
        let storage = PlaneStorage(count: YCbCr420Image.packedCount(width: width, height: height))
        let sourceChroma = ((self.width + 1) / 2, (self.height + 1) / 2)
        withExtendedLifetime(planes) {
            resample(luma.grid(width: self.width, height: self.height), span: (Double(self.width), Double(self.height)),
                     scale: scale, into: storage.pointer, width: width, height: height, threads: threads)
            // The chroma planes cover the picture's extent in half-size samples.
            let chromaSpan = (Double(self.width) / 2, Double(self.height) / 2)
            // A sample sitting `siting` luma pixels off its block's centre is where the centred mapping expects
            // the point half as many chroma samples away, the other way.
            let shift = (-layout.siting.x / 2, -layout.siting.y / 2)
            for (index, plane) in [cb, cr].enumerated() {
                resample(plane.grid(width: sourceChroma.0, height: sourceChroma.1), span: chromaSpan, scale: scale, shift: shift,
                         into: storage.pointer + lumaCount + index * chromaCount, width: chromaWidth, height: chromaHeight,
                         threads: threads)
            }
        }
        var resizedLayout = layout
        resizedLayout.siting = .centred
        return YCbCr420Image(packed: storage.pointer, width: width, height: height, layout: resizedLayout, owner: storage)
    }
}

extension DecodedPixels {
    /// The picture at `width` x `height`, in the form it came in.
    func resized(width: Int, height: Int, threads: Int) -> DecodedPixels {
        switch self {
        case .rgb(let image): .rgb(ImagePrep.resized(image, width: width, height: height, threads: threads))
        case .rgbPlanes(let image): .rgbPlanes(image.resized(width: width, height: height, threads: threads))
        case .ycbcr420(let image): .ycbcr420(image.resized(width: width, height: height, threads: threads))
        case .animation(let animation):
            .animation(animation.mapFrames { ImagePrep.resized($0, width: width, height: height, threads: threads) })
        }
    }
}

private extension SamplePlane {
    func grid(width: Int, height: Int) -> SampleGrid {
        SampleGrid(base: base.assumingMemoryBound(to: UInt8.self), width: width, height: height, channels: 1, rowBytes: stride)
    }
}
