/// What `info` tells of a JPEG XL file, from libjxl's headers and boxes: no pixel is decoded.
enum JXLDescription {
    static func describe(_ file: [UInt8]) throws -> ImageDescription {
        let jxl = try JXLFile(file, maxPixels: .max)
        let container = JXLStructure.boxes(file) != nil
        let coding = jxl.hasJPEGReconstruction ? "lossless JPEG recompression" : jxl.usesOriginalProfile ? "lossless or modular" : "lossy"
        var description = ImageInspector.describe(jxl.metadata, format: "JPEG XL (\(coding), \(container ? "container" : "bare codestream"))",
                                                  width: jxl.width, height: jxl.height)
        // libjxl turns the picture by the codestream's orientation; an EXIF Orientation is not applied again.
        description.width = jxl.width
        description.height = jxl.height
        description.storedSize = jxl.orientation > 4 ? PixelSize(width: jxl.height, height: jxl.width) : nil
        description.bitDepth = jxl.bitsPerSample
        description.hasAlpha = jxl.hasAlpha
        if jxl.hasJPEGReconstruction { description.contents.append("a JPEG reconstruction box (jbrd): djxl rebuilds the original JPEG byte for byte") }
        if jxl.orientation != 1 { description.contents.append("codestream orientation \(jxl.orientation) (applied when decoding)") }
        if jxl.animated, jxl.frames > 1 {
            description.contents.append("\(jxl.frames) frames (the first is converted)")
        }
        if jxl.floatSamples { description.notes.append("floating-point samples: decoded to 8 bits") }
        description.notes += jxl.warnings
        return description
    }
}
