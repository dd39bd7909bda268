/// Rewrites a container's `brob` boxes that hold `Exif` or `xml ` as the plain boxes they decompress to
/// (libjxl decompresses them): exiftool 12.57 reads only plain ones. Other boxes stay byte for byte.
enum JXLBoxes {
    static func uncompressed(_ file: [UInt8]) throws -> [UInt8] {
        guard let boxes = JXLStructure.boxes(file),
              boxes.contains(where: { $0.type == "brob" && isMetadata(file[$0.payload].prefix(4)) }) else { return file }
        var start = 0
        var output: [UInt8] = []
        output.reserveCapacity(file.count + file.count / 8)
        let decompressed = try JXLFile(file, maxPixels: .max)
        for box in boxes {
            // The box's header lies just before its payload; the next box starts at the payload's end.
            let headerStart = start
            start = box.payload.upperBound
            guard box.type == "brob", isMetadata(file[box.payload].prefix(4)) else {
                output += file[headerStart..<box.payload.upperBound]
                continue
            }
            let inner = String(decoding: file[box.payload].prefix(4), as: UTF8.self)
            let payload: [UInt8]? = inner == "Exif" ? decompressed.exifBox : decompressed.metadata.xmp
            guard let payload else {
                output += file[headerStart..<box.payload.upperBound]   // not readable here: left as it is
                continue
            }
            guard let size = UInt32(exactly: payload.count + 8) else { throw ImagePrepError(.unsupported, "a metadata box is over 4 GB") }
            output += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(inner.utf8) + payload
        }
        return output
    }

    private static func isMetadata(_ type: ArraySlice<UInt8>) -> Bool {
        type.elementsEqual("Exif".utf8) || type.elementsEqual("xml ".utf8)
    }
}
