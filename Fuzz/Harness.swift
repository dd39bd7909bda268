import Foundation

// libFuzzer's entry point for every target: IMGPREP_FUZZ_TARGET names the target (scripts/fuzz.sh
// sets it), and Tests/ImagePrepTests/FuzzTargets.swift says what each one runs.

private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["IMGPREP_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("IMGPREP_FUZZ_TARGET must be one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
