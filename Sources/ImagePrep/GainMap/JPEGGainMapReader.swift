/// Finds the gain map of a JPEG: an image after the first (listed in MPF) that carries Ultra HDR's
/// `hdrgm` XMP or an ISO 21496-1 block (whose values win where both exist), or Apple's `HDRGainMap` XMP
/// (headroom from that XMP or the primary's MakerNote, see AppleGainMap).
enum JPEGGainMapReader {
    /// - Parameter decodes: decode the map's pixels too (else only say what there is).
    static func read(_ file: [UInt8], primaryEXIF: [UInt8]?, decodes: Bool) -> GainMapReading {
        for range in MultiPictureFormat.secondaryImages(in: file) {
            let image = Array(file[range])
            var xmp: [UInt8]?, iso: GainMapMetadata?
            for segment in JPEGSegmentWalk.segments(in: image) {
                let payload = Array(image[segment.payload])
                if segment.marker == JPEGSegment.app1, payload.starts(with: JPEGSegment.xmpHeader), xmp == nil {
                    xmp = Array(payload.dropFirst(JPEGSegment.xmpHeader.count))
                } else if segment.marker == JPEGSegment.app2, iso == nil {
                    iso = ISOGainMapBlock.metadata(in: payload)
                }
            }
            let origin: GainMapOrigin, metadata: GainMapMetadata?, appleHeadroom: Double?
            if let iso {
                (origin, metadata, appleHeadroom) = (.iso21496, iso, nil)
            } else if let xmp, let values = GainMapXMP.metadata(in: xmp) {
                (origin, metadata, appleHeadroom) = (.ultraHDR, values, nil)
            } else if let xmp, XMPValues.mentions(AppleGainMap.xmpNamespace, in: xmp) {
                (origin, metadata, appleHeadroom) = (.appleMPF, nil, AppleGainMap.headroom(mapXMP: xmp, exif: primaryEXIF))
            } else {
                continue
            }
            var reading = GainMapReading(origin: origin, headroom: metadata?.headroom ?? appleHeadroom)
            if let size = try? JPEGDecoder.dimensions(of: image) { reading.storedSize = size }
            if let metadata, !metadata.isUsable {
                reading.warnings.append("the gain map's values cannot be used (\(origin.rawValue)); it is left out")
                return reading
            }
            guard decodes else { return reading }
            // A map is never larger than its picture: anything else is refused before decoding (bombs).
            let primary = try? JPEGDecoder.dimensions(of: file)
            guard let size = reading.storedSize, let primary, size.width * size.height <= primary.width * primary.height else {
                reading.warnings.append("the gain map (\(origin.rawValue)) is larger than the picture or unreadable; it is left out")
                return reading
            }
            do {
                let plane = try grey(image)
                if let metadata {
                    reading.gainMap = GainMap(plane: plane, metadata: metadata, origin: origin)
                } else {
                    reading.gainMap = AppleGainMap.gainMap(plane: plane, headroom: appleHeadroom, origin: origin)
                }
            } catch {
                reading.warnings.append("the gain map cannot be decoded (\(error)); it is left out")
            }
            return reading
        }
        return GainMapReading()
    }

    /// The first channel of the decode: the grey samples of a one-component JPEG (a three-component
    /// map would need per-channel gains, which imgprep does not carry).
    static func grey(_ jpeg: [UInt8]) throws -> GrayPlane {
        let decoded = try JPEGDecoder.decode(jpeg)
        var samples = [UInt8](repeating: 0, count: decoded.width * decoded.height)
        decoded.pixels.withUnsafeBufferPointer { rgb in
            for index in samples.indices { samples[index] = rgb[index * 3 + 1] }
        }
        return GrayPlane(width: decoded.width, height: decoded.height, pixels: samples)
    }
}
