import Foundation
@testable import ImagePrep

extension FuzzTarget {
    /// JPEG's segments: metadata, the gain-map readers, the quality estimate and IPTC.
    static let jpegMarkers = FuzzTarget("jpeg-markers", run: fuzzJPEGMarkers)

    private static func fuzzJPEGMarkers(_ bytes: [UInt8]) {
        if case .success(let values)? = ISOGainMapBlock.metadata(in: bytes) { checkGainMapValues(values) }
        let reading = JPEGGainMapReader.read(bytes, primaryEXIF: nil, decodes: true)
        if let values = reading.gainMap?.metadata { checkGainMapValues(values) }
        precondition(reading.headroom.map { $0.isFinite && $0 <= exp2(GainMapMetadata.maxStops) } != false, "headroom out of range")
        let (metadata, _) = JPEGMarkers.metadata(in: bytes)
        _ = JPEGMarkers.estimatedQuality(of: bytes)
        _ = HeaderProbe.jpeg(bytes)
        if let exif = metadata.exif { _ = Exif.orientation(in: exif) }
        // The whole file as Photoshop resources too: the IPTC parser meets arbitrary bytes either way.
        for resources in [metadata.iptc, bytes].compactMap({ $0 }) {
            _ = IPTC.iim(in: resources)
            if let stripped = try? IPTC.strippingLocation(resources) {
                precondition(!IPTC.hasLocation(stripped), "location survived --strip-location in IPTC")
            }
        }
    }
}
