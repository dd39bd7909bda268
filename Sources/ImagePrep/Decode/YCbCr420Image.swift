/// 8-bit Y'CbCr 4:2:0 in the layout it was coded in (a JPEG's JFIF, a HEIC's own matrix and range). Kept as
/// planes, a picture goes from the decoder to an encoder that stores Y'CbCr without the round trip through
/// RGB (and its 36 MB per 12 MP).
public struct YCbCr420Image: Sendable {
    public let width: Int
    public let height: Int
    public let layout: YCbCrLayout
    /// The decoder's own buffers, read in place: copying the planes would cost 18 MB per 12 MP.
    let planes: DecodedPlanes

    init(width: Int, height: Int, layout: YCbCrLayout, planes: DecodedPlanes) {
        self.width = width
        self.height = height
        self.layout = layout
        self.planes = planes
    }

    /// Planes packed one after another at `base` (what libjpeg's raw decoder and our own stages write):
    /// luma, then Cb and Cr of `packedCount`'s chroma size each.
    init(packed base: UnsafeRawPointer, width: Int, height: Int, layout: YCbCrLayout, owner: AnyObject) {
        let lumaCount = width * height, chromaWidth = (width + 1) / 2, chromaCount = chromaWidth * ((height + 1) / 2)
        self.init(width: width, height: height, layout: layout, planes: DecodedPlanes([
            SamplePlane(base: base, stride: width),
            SamplePlane(base: base + lumaCount, stride: chromaWidth),
            SamplePlane(base: base + lumaCount + chromaCount, stride: chromaWidth),
        ], owner: owner))
    }

    /// Bytes of a packed picture: luma plus two chroma planes of ((width+1)/2) x ((height+1)/2).
    static func packedCount(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    var luma: SamplePlane { planes.planes[0] }
    var cb: SamplePlane { planes.planes[1] }
    var cr: SamplePlane { planes.planes[2] }

    /// Interleaved RGB, for the stages that need it.
    public func rgb() -> PixelBuffer {
        YCbCrToRGB.convert(width: width, height: height, layout: layout, luma: luma, cb: cb, cr: cr)
    }
}
