/// Chroma resolution of the Y'CbCr an encoder compresses: .s420 halves it both ways (smallest files),
/// .s444 keeps it all. `--subsampling` sets it for every format that chooses one.
public enum ChromaSubsampling: Sendable, Equatable, Codable { case s420, s422, s444 }
