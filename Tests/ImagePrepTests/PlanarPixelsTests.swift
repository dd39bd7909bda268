import Testing
@testable import ImagePrep

/// Planes split from an interleaved picture, each with its own row stride wider than the row.
private func planes(of image: PixelBuffer) -> RGBPlanes {
    let strides = [image.width + 13, image.width + 3, image.width + 64]
    let sizes = strides.map { $0 * image.height }, offsets = [0, sizes[0], sizes[0] + sizes[1]]
    let storage = PlaneStorage(count: sizes.reduce(0, +))
    for y in 0..<image.height {
        for x in 0..<image.width {
            for c in 0..<3 { storage.pointer[offsets[c] + y * strides[c] + x] = image.pixels[(y * image.width + x) * 3 + c] }
        }
    }
    let base = UnsafeRawPointer(storage.pointer)
    let decoded = DecodedPlanes((0..<3).map { SamplePlane(base: base + offsets[$0], stride: strides[$0]) }, owner: storage)
    return RGBPlanes(width: image.width, height: image.height, planes: decoded)
}

/// A JFIF 4:2:0 picture with chroma that varies across the frame.
private func ycbcr(width: Int, height: Int) -> YCbCr420Image {
    let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
    let lumaCount = width * height, chromaCount = chromaWidth * chromaHeight
    let storage = PlaneStorage(count: YCbCr420Image.packedCount(width: width, height: height))
    for y in 0..<height { for x in 0..<width { storage.pointer[y * width + x] = UInt8(40 + (x * 150 / width) + (y % 7)) } }
    for y in 0..<chromaHeight {
        for x in 0..<chromaWidth {
            storage.pointer[lumaCount + y * chromaWidth + x] = UInt8(90 + x * 70 / chromaWidth)
            storage.pointer[lumaCount + chromaCount + y * chromaWidth + x] = UInt8(170 - y * 60 / chromaHeight)
        }
    }
    return YCbCr420Image(packed: storage.pointer, width: width, height: height, layout: .jfif, owner: storage)
}

struct PlanarPixelsTests {
    @Test func planesInterleaveBackToTheSamePixels() {
        let image = CodecTestSupport.gradient(width: 37, height: 21)
        #expect(planes(of: image).rgb() == image)
    }

    @Test(arguments: [(403, 302, 205, 154), (640, 480, 97, 73), (1000, 751, 333, 250), (50, 40, 49, 39)])
    func planesResizeLikeInterleavedPixels(_ sizes: (Int, Int, Int, Int)) {
        let image = CodecTestSupport.gradient(width: sizes.0, height: sizes.1)
        for threads in [1, 2] {
            let interleaved = resized(image, width: sizes.2, height: sizes.3, threads: threads)
            let planar = planes(of: image).resized(width: sizes.2, height: sizes.3, threads: threads).rgb()
            // Same taps, same order of summation: at most a rounding step apart.
            #expect(planar.width == sizes.2 && planar.height == sizes.3)
            #expect(zip(planar.pixels, interleaved.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        }
    }

    /// Planes headed for AVIF or HEIC are turned into Y'CbCr here the way libheif 1.15 does it: the same
    /// samples, so the same file as when libheif converts them, at every subsampling and at odd sizes.
    @Test(.enabled(if: TestSupport.hasTestHooks, "needs the test hooks (-D IMGPREP_TEST_HOOKS, as make test builds)"),
          arguments: [HeifEncoder.Codec.av1, .hevc])
    func planesEncodeToTheSameHeifAsWhenLibheifConvertsThem(_ codec: HeifEncoder.Codec) throws {
        #if IMGPREP_TEST_HOOKS
        for (width, height) in [(96, 64), (67, 45)] {
            let png = try DeterminismTests.photoLikePNG(width: width, height: height)
            let image = try DecoderRegistry.decoder(for: .png).decode(png, options: DecodeOptions(maxPixels: 1 << 30)).content.rgb()
            for subsampling in [JPEGSettings.Subsampling.s420, .s422, .s444] {
                var encoder = HeifEncoder(codec: codec, subsampling: subsampling)
                let ours = try encoder.encode(.rgbPlanes(planes(of: image)), quality: 90, metadata: ImageMetadata())
                encoder.libheifConvertsPlanesForTesting = true
                let libheifs = try encoder.encode(.rgbPlanes(planes(of: image)), quality: 90, metadata: ImageMetadata())
                let same = ours == libheifs   // not the arrays themselves in the message: thousands of bytes
                #expect(same, "\(codec) \(subsampling) \(width)x\(height): \(ours.count) bytes against libheif's \(libheifs.count)")
            }
        }
        #endif
    }

    @Test func planesEncodeToTheSameJPEGAsInterleavedPixels() throws {
        let image = CodecTestSupport.gradient(width: 301, height: 203)
        for subsampling in [JPEGSettings.Subsampling.s420, .s444] {
            let settings = JPEGSettings(subsampling: subsampling)
            let encoder = JPEGEncoder()
            let fromPlanes = try encoder.encode(planes(of: image), quality: 83, settings: settings)
            let fromPixels = try encoder.encode(image, quality: 83, settings: settings)
            #expect(fromPlanes == fromPixels)
        }
    }

    @Test(arguments: 1...8)
    func ycbcrPlanesTurnLikeTheirRGB(_ value: Int) throws {
        let orientation = ExifOrientation(exifValue: value)
        let source = ycbcr(width: 64, height: 38)
        let turned = try #require(source.oriented(orientation))
        // Each chroma sample covers the same 2x2 block before and after, so the two orders agree exactly.
        #expect(turned.rgb() == oriented(source.rgb(), orientation))
        #expect(ycbcr(width: 63, height: 38).oriented(orientation) == nil, "odd sides are left to the RGB path")
    }

    @Test(arguments: [(640, 480, 320, 240), (401, 301, 150, 113), (99, 75, 98, 74)])
    func ycbcrPlanesResizeCloseToTheirRGB(_ sizes: (Int, Int, Int, Int)) {
        let source = ycbcr(width: sizes.0, height: sizes.1)
        let planar = source.resized(width: sizes.2, height: sizes.3, threads: 2)
        #expect(planar.width == sizes.2 && planar.height == sizes.3)
        let reference = resized(source.rgb(), width: sizes.2, height: sizes.3)
        // Chroma is filtered at half resolution rather than repeated then filtered: close, not equal.
        #expect(CodecTestSupport.psnr(planar.rgb(), reference) > 38)
    }
}
