/// Extended XMP (XMP Specification Part 3, 1.1.3.1): an XMP packet too large for one JPEG segment is
/// split into a main packet (APP1 "http://ns.adobe.com/xap/1.0/") and the rest, serialized on its own and
/// cut into APP1 "http://ns.adobe.com/xmp/extension/" segments: each holds the rest's GUID (32 hex
/// digits, the MD5 of it), its full length and this piece's offset (32-bit big-endian). The main packet
/// names the GUID in xmpNote:HasExtendedXMP. Lightroom and Google Camera write it past 64 KB (depth maps,
/// edit history). Carried byte for byte, so the GUID stays right.
public struct ExtendedXMP: Sendable, Equatable {
    public var guid: [UInt8]
    public var packet: [UInt8]

    static let header: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    static let guidLength = 32
    /// What one segment holds after its header, GUID, full length and offset.
    static let maxChunk = JPEGSegment.maxPayload - header.count - guidLength - 8

    /// One segment's share.
    struct Chunk {
        var guid: [UInt8]
        var fullLength: Int
        var offset: Int
        var data: ArraySlice<UInt8>

        /// nil when the payload is too short to hold the fields.
        init?(payload: [UInt8]) {
            let fields = ExtendedXMP.header.count
            guard payload.count >= fields + ExtendedXMP.guidLength + 8 else { return nil }
            guid = Array(payload[fields..<fields + ExtendedXMP.guidLength])
            func number(at i: Int) -> Int { payload[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
            fullLength = number(at: fields + ExtendedXMP.guidLength)
            offset = number(at: fields + ExtendedXMP.guidLength + 4)
            data = payload[(fields + ExtendedXMP.guidLength + 8)...]
        }
    }

    /// The segments to write after the main XMP segment.
    var segments: [JPEGSegment] {
        stride(from: 0, to: packet.count, by: Self.maxChunk).map { start in
            let end = min(start + Self.maxChunk, packet.count)
            return JPEGSegment(marker: JPEGSegment.app1, payload: Self.header + guid + Self.bigEndian(packet.count)
                               + Self.bigEndian(start) + packet[start..<end])
        }
    }

    /// The pieces joined, when they belong to the main packet's GUID and cover the whole length exactly
    /// once; else why not. Pieces with another GUID belong to no packet imgprep keeps.
    static func reassemble(_ chunks: [Chunk], mainXMP: [UInt8]?) -> Result<ExtendedXMP, ImagePrepError> {
        func failure(_ reason: String) -> Result<ExtendedXMP, ImagePrepError> { .failure(ImagePrepError(.corrupt, reason)) }
        guard let main = mainXMP, let guid = guid(inMainXMP: main) else {
            return failure("the main XMP packet does not name it (no xmpNote:HasExtendedXMP)")
        }
        let mine = chunks.filter { $0.guid == guid }.sorted { $0.offset < $1.offset }
        guard let length = mine.first?.fullLength else { return failure("no segment carries the GUID the main XMP names") }
        var packet: [UInt8] = []
        packet.reserveCapacity(min(length, mine.reduce(0) { $0 + $1.data.count }))
        for chunk in mine {
            guard chunk.fullLength == length, chunk.offset == packet.count, chunk.data.count <= length - packet.count else {
                return failure("its segments overlap, leave gaps or disagree on the length")
            }
            packet += chunk.data
        }
        guard packet.count == length else { return failure("its segments hold \(packet.count) of its \(length) bytes") }
        return .success(ExtendedXMP(guid: guid, packet: packet))
    }

    /// The GUID in xmpNote:HasExtendedXMP, as an attribute (`="…"`) or an element (`>…<`).
    static func guid(inMainXMP xmp: [UInt8]) -> [UInt8]? {
        let name = Array("HasExtendedXMP".utf8)
        guard let at = xmp.firstRange(of: name)?.upperBound else { return nil }
        var i = at
        while i < xmp.count, [UInt8(ascii: "="), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ">"), UInt8(ascii: " ")].contains(xmp[i]) { i += 1 }
        guard i + guidLength <= xmp.count else { return nil }
        let guid = Array(xmp[i..<i + guidLength])
        let hex = Array("0123456789ABCDEFabcdef".utf8)
        return guid.allSatisfy(hex.contains) ? guid : nil
    }

    private static func bigEndian(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
