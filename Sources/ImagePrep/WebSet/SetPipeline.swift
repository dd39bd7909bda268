/// A web image set from one input: one decode and one orientation, then each width resampled from the
/// full upright picture (or the crop window) and encoded in every format asked for. What the manifest
/// needs besides the files (caption, colour, placeholder) comes from one small upright sRGB reduction.
enum SetPipeline {
    /// The reduction the caption-free facts are computed on: long edge at most this.
    static let analysisEdge = 256

    static func prepare(_ file: [UInt8], settings: ConversionSettings, set: SetSettings, threads: Int,
                        onStage: (PipelineStage) -> Void) throws -> PreparedImage {
        onStage(.sniff)
        let format = try FormatSniffer.sniff(file).get()
        onStage(.decode)
        let decoder = format.reader.decoder
        let stored = try decoder.header(of: file)
        try stored.check(maxPixels: settings.maxPixels)
        // Every frame and the gain map are read when some format of the set keeps them.
        var options = DecodeOptions(maxPixels: settings.maxPixels, threads: threads,
                                    shrinkingTo: shrinkingTo(stored: (stored.width, stored.height), settings: settings, set: set),
                                    convertsToSRGB: settings.color == .srgb,
                                    keepsAnimation: set.formats.contains { $0.format.writer.traits.keepsAnimation })
        options.readsGainMap = set.formats.contains { GainMapPlan.writes(variantSettings($0, settings: settings, set: set, width: nil)) }
        // The source's own Y'CbCr planes when a format of the set stores them (the others get RGB per width).
        // (Not for --quality auto, as in ImagePipeline.)
        options.keepsYCbCr420 = settings.color == .keep && settings.scoreTarget == nil && set.formats.contains {
            EncoderRegistry.encoder(for: variantSettings($0, settings: settings, set: set, width: nil), searching: false,
                                    threads: threads).ycbcrLayout != nil
        }
        var decoded = try decoder.decode(file, options: options)
        onStage(.orient)
        let picture = decoded.content.oriented(decoded.orientation)
        if picture.width * picture.height > settings.maxPixels {
            throw ImagePrepError(.tooLarge, "the picture decodes as \(picture.width)x\(picture.height), over the --max-pixels limit of \(settings.maxPixels) pixels",
                                 stage: .decode)
        }
        let headerUpright = decoded.orientation.swapsDimensions ? (stored.height, stored.width) : (stored.width, stored.height)
        let upright = DecodedSize.upright(header: headerUpright, picture: (picture.width, picture.height), warnings: &decoded.warnings)
        let gainMap = SetGainMap(decoded, upright: upright)
        GainMapPlan.removeSourceClaims(&decoded, settings: settings)

        onStage(.resize)
        let analysis = analysisPicture(picture, decoded: decoded, threads: threads)
        let cover = set.box != nil && set.fit == .cover
        let window = cover ? set.box.map {
            SmartCrop.window(analysis: analysis, sourceWidth: upright.width, sourceHeight: upright.height,
                             aspectWidth: $0.width, aspectHeight: $0.height, strategy: set.crop)
        } : nil
        let sizes = SetPlan.sizes(sourceWidth: upright.width, sourceHeight: upright.height, settings: set,
                                  maxDimension: settings.maxDimension, cropWindow: window)
        let facts = PreparedSet(variants: [], width: upright.width, height: upright.height,
                                alt: ImageCaption.text(in: decoded.metadata), color: DominantColor.hex(of: analysis),
                                placeholder: try Placeholders.make(set.placeholder, from: analysis), crop: window)

        // Encoded per width, then ordered by format: each width's pixels are made once.
        var encoded: [[(image: PreparedImage, frames: Int?)]] = []
        var warnings = decoded.warnings
        func note(_ more: [String]) {
            for warning in more where !warnings.contains(warning) { warnings.append(warning) }
        }
        var sdrOnly: [OutputFormat] = [], mapWritten = false, stills: [OutputFormat] = []
        for size in sizes {
            onStage(.resize)
            var pixels = try resampled(picture, to: size.plan, upright: upright, background: settings.background, threads: threads)
            let map = gainMap?.fitted(to: size.plan, threads: threads)
            var forWidth = decoded
            onStage(.colour)
            if settings.color == .srgb {
                pixels = ImagePipeline.toSRGB(pixels, decoded: &forWidth, settings: settings, threads: threads)
            }
            onStage(.encode)
            var row: [(image: PreparedImage, frames: Int?)] = []
            for output in set.formats {
                let variantSettings = variantSettings(output, settings: settings, set: set, width: size.requestedWidth)
                let searching = variantSettings.budget != nil || variantSettings.scoreTarget != nil
                let encoder = EncoderRegistry.encoder(for: variantSettings, searching: searching, threads: threads)
                var input = pixels
                if case .animation(let animation) = input, !encoder.traits.keepsAnimation {
                    input = .rgb(animation.frames[0].canvas)
                    if !stills.contains(output.format) { stills.append(output.format) }   // one warning for them all, below
                }
                switch input {
                case .rgb(let image) where image.hasAlpha && !encoder.traits.keepsAlpha:
                    input = .rgb(ImagePipeline.flattened(image, onto: settings.background))
                default:
                    input = input.prepared(for: encoder)
                }
                let mapWriter = output.format.writer as? any GainMapWriter
                let withMap = GainMapPlan.writes(variantSettings) ? map.flatMap {
                    mapWriter?.gainMapEncoder(base: encoder, gainMap: $0, pictureSize: (input.width, input.height), threads: threads)
                } : nil
                if withMap != nil {
                    mapWritten = true
                } else if decoded.gainMap.origin != nil, settings.hdr == .keep, !GainMapPlan.writes(variantSettings) {
                    if !sdrOnly.contains(output.format) { sdrOnly.append(output.format) }   // one warning for them all, below
                } else if gainMap != nil, GainMapPlan.writes(variantSettings) {   // only `fitted` says no: a padded box
                    note(["left out the HDR gain map of the padded variants (--fit contain): the padding has no HDR values"])
                } else {
                    note(GainMapPlan.notes(decoded.gainMap, written: false, settings: variantSettings))
                }
                var prepared = try OutputEncoding.encode(input, with: withMap ?? encoder, metadata: forWidth.metadata,
                                                         settings: variantSettings, threads: threads, warnings: [])
                if withMap != nil { prepared.gainMap = mapWriter?.writtenGainMap(in: prepared.bytes) }
                note(prepared.warnings)
                let frames: Int? = if case .animation(let animation) = input { animation.frames.count } else { nil }
                row.append((prepared, frames))
            }
            encoded.append(row)
        }

        if let origin = decoded.gainMap.origin, !sdrOnly.isEmpty {
            let names = sdrOnly.map(\.writer.displayName).joined(separator: " and ")
            let keepers = Formats.writers.filter(\.traits.carriesGainMap).map(\.displayName).joined(separator: " and ")
            note([mapWritten ? "kept the HDR gain map (\(origin.rawValue)) in the \(keepers) variants only: \(names) cannot carry one here, so those variants are SDR"
                             : "dropped the HDR gain map (\(origin.rawValue)): \(names) cannot carry one here; wrote SDR variants only (\(keepers) keeps it as Ultra HDR)"])
        }

        if case .animation(let animation) = picture, !stills.isEmpty {
            let names = stills.map(\.writer.displayName).joined(separator: " and ")
            note(["an animation of \(animation.frames.count) frames: the \(names) variants show its first frame only"])
        }

        var result = facts
        var bytes: [UInt8] = []
        for (formatIndex, output) in set.formats.enumerated() {
            for (size, row) in zip(sizes, encoded) {
                let (variant, frames) = row[formatIndex]
                bytes += variant.bytes
                result.variants.append(PreparedVariant(format: output.format, width: variant.width, height: variant.height,
                                                       bytes: variant.bytes.count, quality: variant.quality,
                                                       requestedWidth: size.requestedWidth, encodes: variant.encodes,
                                                       gainMap: variant.gainMap, frames: frames))
            }
        }
        let largest = result.variants.max { $0.width * $0.height < $1.width * $1.height }
        var image = PreparedImage(bytes: bytes, format: set.formats.first?.format ?? settings.format,
                                  width: largest?.width ?? upright.width, height: largest?.height ?? upright.height,
                                  quality: largest?.quality, encodes: result.variants.reduce(0) { $0 + $1.encodes },
                                  passedThrough: false, warnings: warnings)
        image.set = result
        return image
    }

    /// The settings one variant is encoded with: its format and quality, and its width's budget (none for
    /// a lossless format, which has no quality to search).
    static func variantSettings(_ output: FormatQuality, settings: ConversionSettings, set: SetSettings, width: Int?) -> ConversionSettings {
        var variant = settings
        variant.format = output.format
        variant.quality = output.quality
        variant.keepsInputCoding = false
        variant.budget = set.budget(forWidth: width, fallback: settings.budget)
        if variant.budget != nil, !output.format.writer.traits.isLossy { variant.budget = nil }
        return variant
    }

    /// The long edge (as stored) the decoder may shrink to: the largest variant's, whichever way the
    /// picture turns; nil with a box (its window is planned in full-size coordinates).
    static func shrinkingTo(stored: (width: Int, height: Int), settings: ConversionSettings, set: SetSettings) -> Int? {
        guard set.box == nil, stored.width > 0, stored.height > 0 else { return nil }
        let edges = [(stored.width, stored.height), (stored.height, stored.width)].flatMap { size in
            SetPlan.sizes(sourceWidth: size.0, sourceHeight: size.1, settings: set, maxDimension: settings.maxDimension)
                .map { max($0.width, $0.height) }
        }
        guard let edge = edges.max(), edge < max(stored.width, stored.height) else { return nil }
        return edge
    }

    /// The upright picture reduced to a long edge of at most `analysisEdge`, in sRGB.
    static func analysisPicture(_ picture: DecodedPixels, decoded: DecodedImage, threads: Int) -> PixelBuffer {
        var picture = picture
        if case .animation(let animation) = picture { picture = .rgb(animation.frames[0].canvas) }   // what a still shows
        let size = fittedSize(width: picture.width, height: picture.height, maxDimension: analysisEdge)
        let small = (size.width, size.height) == (picture.width, picture.height)
            ? picture : picture.resized(width: size.width, height: size.height, threads: threads)
        var image = small.rgb()
        var notes: [String] = []   // a profile that does not convert is reported by the variants' own encode
        if !decoded.isSRGB,
           let transform = SRGBConversion.transform(for: decoded.metadata.icc, bytesPerSample: 1, stride: image.channels, warnings: &notes) {
            image = SRGBConversion.converted(image, with: transform, threads: 1)
        }
        return image
    }

    /// The pixels of one size: the plan's window of the upright picture, resampled, on its canvas.
    static func resampled(_ picture: DecodedPixels, to plan: BoxPlan, upright: (width: Int, height: Int),
                          background: RGBColor, threads: Int) throws -> DecodedPixels {
        guard plan.scaledWidth > 0, plan.scaledHeight > 0, plan.canvasWidth >= plan.scaledWidth, plan.canvasHeight >= plan.scaledHeight,
              plan.offsetX >= 0, plan.offsetY >= 0, plan.offsetX <= plan.canvasWidth - plan.scaledWidth,
              plan.offsetY <= plan.canvasHeight - plan.scaledHeight,
              plan.window.x >= 0, plan.window.y >= 0, plan.window.width > 0, plan.window.height > 0,
              plan.window.x <= upright.width - plan.window.width, plan.window.y <= upright.height - plan.window.height
        else {
            throw ImagePrepError(.corrupt, "the box plan does not fit the picture (\(plan))", stage: .resize)
        }
        let whole = plan.window == CropWindow(x: 0, y: 0, width: upright.width, height: upright.height)
        let padding = (plan.canvasWidth, plan.canvasHeight) != (plan.scaledWidth, plan.scaledHeight)
        // One frame (or still) through the window, the scaling and the padding.
        func placed(_ image: PixelBuffer) -> PixelBuffer {
            var scaled = image
            if !whole {
                // In the decoded picture's pixels (smaller than the header's after shrink-on-load).
                scaled = cropped(image, to: pixelWindow(plan.window, upright: upright, width: image.width, height: image.height))
            }
            if (plan.scaledWidth, plan.scaledHeight) != (scaled.width, scaled.height) {
                scaled = ImagePrep.resized(scaled, width: plan.scaledWidth, height: plan.scaledHeight, threads: threads)
            }
            return padding ? padded(scaled, canvas: (plan.canvasWidth, plan.canvasHeight), at: (plan.offsetX, plan.offsetY),
                                    background: background) : scaled
        }
        if whole {
            // Planes stay planes (and an animation's frames are scaled as `convert` scales them).
            let scaled = (plan.scaledWidth, plan.scaledHeight) == (picture.width, picture.height)
                ? picture : picture.resized(width: plan.scaledWidth, height: plan.scaledHeight, threads: threads)
            guard padding else { return scaled }
            if case .animation(let animation) = scaled { return .animation(animation.mapFrames(placed)) }
            return .rgb(placed(scaled.rgb()))
        }
        if case .animation(let animation) = picture { return .animation(animation.mapFrames(placed)) }
        return .rgb(placed(picture.rgb()))
    }

    /// `window` (upright coordinates) in a `width`x`height` grid covering the same upright picture: at
    /// least one pixel, inside the grid.
    static func pixelWindow(_ window: CropWindow, upright: (width: Int, height: Int), width: Int, height: Int) -> CropWindow {
        let sx = Double(width) / Double(upright.width), sy = Double(height) / Double(upright.height)
        let x = min(width - 1, max(0, Int(Double(window.x) * sx))), y = min(height - 1, max(0, Int(Double(window.y) * sy)))
        return CropWindow(x: x, y: y, width: max(1, min(width - x, Int((Double(window.width) * sx).rounded()))),
                          height: max(1, min(height - y, Int((Double(window.height) * sy).rounded()))))
    }

    static func cropped(_ image: PixelBuffer, to window: CropWindow) -> PixelBuffer {
        PixelBuffer(width: window.width, height: window.height, channels: image.channels,
                    pixels: cropped(image.pixels, width: image.width, channels: image.channels, to: window))
    }

    /// The window's rows of interleaved samples `width` pixels wide (a picture's, or a gain map's).
    static func cropped(_ pixels: [UInt8], width: Int, channels: Int, to window: CropWindow) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(window.width * window.height * channels)
        for row in window.y..<(window.y + window.height) {
            let start = (row * width + window.x) * channels
            out += pixels[start..<(start + window.width * channels)]
        }
        return out
    }

    /// `--fit contain`: the picture on a canvas of the background colour (opaque, alpha kept where it was).
    static func padded(_ image: PixelBuffer, canvas: (width: Int, height: Int), at offset: (x: Int, y: Int),
                       background: RGBColor) -> PixelBuffer {
        let channels = image.channels
        var fill = [background.red, background.green, background.blue]
        if channels == 4 { fill.append(255) }
        var pixels = [UInt8](repeating: 0, count: canvas.width * canvas.height * channels)
        for index in 0..<(canvas.width * canvas.height) {
            for c in 0..<channels { pixels[index * channels + c] = fill[c] }
        }
        for row in 0..<image.height {
            let from = row * image.rowBytes, to = ((row + offset.y) * canvas.width + offset.x) * channels
            pixels.replaceSubrange(to..<(to + image.rowBytes), with: image.pixels[from..<(from + image.rowBytes)])
        }
        return PixelBuffer(width: canvas.width, height: canvas.height, channels: channels, pixels: pixels)
    }
}
