/// The sRGB profile written with `--color srgb`: an ICC v4 display profile of 520 bytes (matrix and the
/// exact sRGB curve as one parametric curve), where the usual sRGB profiles take 3 KB (HP's) or more.
/// Built from the published constants, so every output carries the same bytes.
enum SRGBProfile {
    static let bytes: [UInt8] = make()

    private static func make() -> [UInt8] {
        guard let sRGB = ColorProfileSynthesizer.primaries(1) else { return [] }   // nclx 1: always known
        let columns = ColorProfileSynthesizer.adaptedColumns(sRGB)
        // IEC 61966-2-1: Y = ((X + 0.055) / 1.055)^2.4 above 0.04045, X / 12.92 below (ICC type 3).
        let curve = tag("para", u16(3) + u16(0) + [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045].flatMap(s15f16))
        // Bradford D65 -> D50, as lcms and the ICC's sRGB v4 profile give it.
        let chad = [1.0478112, 0.0228866, -0.0501270, 0.0295424, 0.9904844, -0.0170491, -0.0092345, 0.0150436, 0.7521316]
        let tags: [(String, [UInt8])] = [
            ("desc", mluc("sRGB")),
            ("cprt", mluc("No copyright, use freely")),
            ("wtpt", tag("XYZ ", [0.9642, 1.0, 0.8249].flatMap(s15f16))),
            ("chad", tag("sf32", chad.flatMap(s15f16))),
            ("rXYZ", tag("XYZ ", [columns[0].0, columns[0].1, columns[0].2].flatMap(s15f16))),
            ("gXYZ", tag("XYZ ", [columns[1].0, columns[1].1, columns[1].2].flatMap(s15f16))),
            ("bXYZ", tag("XYZ ", [columns[2].0, columns[2].1, columns[2].2].flatMap(s15f16))),
            ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        let dataStart = 128 + 4 + 12 * tags.count
        var table = u32(tags.count), body: [UInt8] = [], offsets: [[UInt8]: Int] = [:]
        for (signature, data) in tags {
            let offset = offsets[data] ?? dataStart + body.count
            if offsets[data] == nil {
                offsets[data] = offset
                body += data
                while body.count % 4 != 0 { body.append(0) }
            }
            table += Array(signature.utf8) + u32(offset) + u32(data.count)
        }
        var header = u32(dataStart + body.count) + [0, 0, 0, 0] + [4, 0x40, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += u16(2026) + u16(1) + u16(1) + u16(0) + u16(0) + u16(0)   // a fixed date: same bytes every time
        header += Array("acsp".utf8) + [UInt8](repeating: 0, count: 24) + u32(0)   // platform ... intent perceptual
        header += [0.9642, 1.0, 0.8249].flatMap(s15f16)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + body
    }

    private static func mluc(_ text: String) -> [UInt8] {
        let utf16 = text.utf16.flatMap { u16(Int($0)) }
        return tag("mluc", u32(1) + u32(12) + Array("enUS".utf8) + u32(utf16.count) + u32(28) + utf16)
    }
    private static func tag(_ type: String, _ payload: [UInt8]) -> [UInt8] { Array(type.utf8) + u32(0) + payload }
    private static func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    private static func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    private static func s15f16(_ v: Double) -> [UInt8] { u32(Int((v * 65536).rounded()) & 0xFFFF_FFFF) }
}
