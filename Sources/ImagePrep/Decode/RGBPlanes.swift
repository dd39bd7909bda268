/// 8-bit RGB as three planes. libheif 1.15 turns every picture into planar RGB
/// before handing it out (asking it for Y'CbCr only adds a conversion back), so this is the cheapest
/// form to take an opaque 8-bit HEIF picture in: read in place, never interleaved at full size
/// (the JPEG encoder interleaves a band of rows at a time, the resizer works plane by plane).
public struct RGBPlanes: Sendable {
    public let width: Int
    public let height: Int
    let planes: DecodedPlanes

    init(width: Int, height: Int, planes: DecodedPlanes) {
        precondition(planes.planes.allSatisfy { $0.stride >= width }, "plane rows shorter than the picture")
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Three `width` x `height` planes packed one after another at `base`, rows tightly packed.
    init(packed base: UnsafeRawPointer, width: Int, height: Int, owner: AnyObject) {
        let count = width * height
        self.init(width: width, height: height,
                  planes: DecodedPlanes((0..<3).map { SamplePlane(base: base + $0 * count, stride: width) }, owner: owner))
    }

    /// Interleaved RGB, for the stages that need it (PNG, rotation).
    public func rgb() -> PixelBuffer {
        let (red, green, blue) = (planes.planes[0], planes.planes[1], planes.planes[2])
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { out, count in
            withExtendedLifetime(planes) {
                for y in 0..<height {
                    let r = red.row(y), g = green.row(y), b = blue.row(y)
                    let o = out.baseAddress! + y * width * 3
                    for x in 0..<width {
                        o[3 * x] = r[x]
                        o[3 * x + 1] = g[x]
                        o[3 * x + 2] = b[x]
                    }
                }
            }
            count = width * height * 3
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
    }
}
