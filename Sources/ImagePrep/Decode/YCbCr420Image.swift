/// 8-bit Y'CbCr 4:2:0, full range with the BT.601 matrix (JFIF): what a 4:2:0 JPEG stores. Kept as planes, a JPEG that
/// is re-encoded upright goes back to the encoder without the round trip through RGB (and its 36 MB
/// per 12 MP).
public struct YCbCr420Image: Sendable {
    public let width: Int
    public let height: Int
    /// The decoder's own buffers, read in place: copying the planes would cost 18 MB per 12 MP.
    let planes: DecodedPlanes

    var luma: SamplePlane { planes.planes[0] }
    var cb: SamplePlane { planes.planes[1] }
    var cr: SamplePlane { planes.planes[2] }

    /// Interleaved RGB, for the stages that need it.
    public func rgb() -> PixelBuffer {
        YCbCrToRGB.convert(width: width, height: height, luma: luma, cb: cb, cr: cr)
    }
}
