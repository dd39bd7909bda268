internal import CBrotli

/// Brotli decompression (libbrotlidec) that stops as soon as the output passes a cap: a few kilobytes
/// can expand to gigabytes, and the work must end with the cap, not with the stream.
enum BrotliStream {
    enum Failure: Error, Equatable {
        case overLimit
        /// Not a Brotli stream, cut short, or bytes after its end.
        case damaged
    }

    static func decompress(_ input: ArraySlice<UInt8>, limit: Int) -> Result<[UInt8], Failure> {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return .failure(.damaged) }
        defer { BrotliDecoderDestroyInstance(state) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)   // the most written past the cap before it is seen
        return input.withUnsafeBufferPointer { source -> Result<[UInt8], Failure> in
            var availableIn = source.count
            var nextIn = source.baseAddress
            while true {
                var availableOut = chunk.count
                let result = chunk.withUnsafeMutableBufferPointer { buffer in
                    var nextOut = buffer.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                let produced = chunk.count - availableOut
                guard output.count + produced <= limit else { return .failure(.overLimit) }
                output += chunk[..<produced]
                switch result {
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                case BROTLI_DECODER_RESULT_SUCCESS: return availableIn == 0 ? .success(output) : .failure(.damaged)
                default: return .failure(.damaged)   // an error, or the input ends mid-stream
                }
            }
        }
    }
}
