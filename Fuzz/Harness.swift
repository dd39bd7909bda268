import Foundation

// libFuzzer's entry point for every target: IMGPREP_FUZZ_TARGET names the target (scripts/fuzz.sh
// sets it), and Tests/ImagePrepTests/FuzzTargets.swift lists what each one runs. IMGPREP_FUZZ_LIST=1
// prints each target's name and longest input instead, so the script runs whatever targets exist.

private let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["IMGPREP_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.named(name) else {
        fatalError("IMGPREP_FUZZ_TARGET must be one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
    }
    return target
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard ProcessInfo.processInfo.environment["IMGPREP_FUZZ_LIST"] == "1" else { return 0 }
    for target in FuzzTarget.all { print(target.name, target.maxLength) }
    exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
