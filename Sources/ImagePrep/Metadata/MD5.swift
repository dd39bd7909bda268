/// MD5 (RFC 1321), only for Photoshop's IPTC digest resource, which readers compare with the IPTC record
/// to tell whether it still agrees with XMP. Not for anything that needs a secure hash.
enum MD5 {
    private static let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
    /// floor(abs(sin(i + 1)) * 2^32)
    private static let constants: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }

    static func digest(_ message: [UInt8]) -> [UInt8] {
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bitCount = UInt64(message.count) &* 8
        padded += (0..<8).map { UInt8(truncatingIfNeeded: bitCount >> (8 * UInt64($0))) }

        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
        for chunk in stride(from: 0, to: padded.count, by: 64) {
            let words = (0..<16).map { w in
                (0..<4).reduce(UInt32(0)) { $0 | UInt32(padded[chunk + 4 * w + $1]) << (8 * UInt32($1)) }
            }
            var (a, b, c, d) = state
            for i in 0..<64 {
                let (f, g): (UInt32, Int) = switch i {
                case 0..<16: ((b & c) | (~b & d), i)
                case 16..<32: ((d & b) | (~d & c), (5 * i + 1) % 16)
                case 32..<48: (b ^ c ^ d, (3 * i + 5) % 16)
                default: (c ^ (b | ~d), (7 * i) % 16)
                }
                let rotated = a &+ f &+ constants[i] &+ words[g]
                (a, d, c) = (d, c, b)
                b = b &+ (rotated << shifts[i] | rotated >> (32 - shifts[i]))
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
        return [state.0, state.1, state.2, state.3].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
    }
}

import Foundation
