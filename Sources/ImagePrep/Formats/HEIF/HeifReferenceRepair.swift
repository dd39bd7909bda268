// Workaround for libheif 1.15.1 (Debian 12) and current iPhone photos.
//
// libheif 1.15 insists that an `auxl` (auxiliary image) or `cdsc` (metadata describes image) item
// reference has exactly one target. iPhone 15 Pro / 16 files with an HDR gain map point those
// references at both the primary image and the `tmap` tone-map item derived from it, so libheif 1.15
// rejects the whole file with "Too many auxiliary image references" or "Metadata not correctly
// assigned to image".
//
// The repair rewrites the `iref` box in memory, keeping its size, so that every absolute offset in
// the file (iloc extents into mdat, idat) stays valid: each such reference keeps only the primary
// item when it is a target, else its first target. Removing k targets frees k×2 bytes (iref version 0,
// 16-bit ids) or k×4 bytes (version 1). libheif 1.15 ignores each entry's size field and reads entries
// field by field (size, type, from-id, count, ids), so slack bytes break the parse (tried: "No 'meta'
// box"); the freed bytes must become well-formed entries that libheif 1.15 stores but never acts on:
//   1. padding entries of the unknown type 'ipad' (12 + 2n bytes in version 0, 14 + 4n in version 1),
//      from a nonexistent item to n distinct nonexistent items; one entry fits any version-0 gap of
//      12 bytes or more, two entries any version-1 gap of 28 bytes or more;
//   2. otherwise (smaller gaps) that many extra nonexistent target ids on the reference *from* the
//      `tmap` item: libheif 1.15 does not know tone-map items, so it never reads their references.
// A gap that neither fits is left alone (nil): the caller then reports libheif's own error.

/// When and how to apply the libheif 1.15 `iref` workaround.
public enum HeifReferenceRepair {
    /// The reference types libheif 1.15 requires to have exactly one target.
    static let singleTargetTypes: Set<String> = ["auxl", "cdsc"]
    static let paddingType: [UInt8] = Array("ipad".utf8)

    /// True when a libheif error message is one of the two this workaround cures.
    public static func isWorkaroundCandidate(message: String) -> Bool {
        message.contains("Too many auxiliary image references")
            || message.contains("Metadata not correctly assigned to image")
    }

    /// True when the file has an `auxl` or `cdsc` reference with more than one target.
    public static func hasMultiTargetReferences(_ file: [UInt8]) -> Bool {
        guard let iref = ISOBMFF.find(["meta", "iref"], in: file),
              let references = ISOBMFF.references(iref, in: file)
        else { return false }
        return references.entries.contains { singleTargetTypes.contains($0.type) && $0.to.count > 1 }
    }
}

/// The file with its `iref` box rewritten (same size) so libheif 1.15 reads it, and what was changed;
/// nil when nothing needed changing or the freed bytes cannot be absorbed.
public func repairedForLibheif115(_ file: [UInt8]) -> (bytes: [UInt8], changes: [String])? {
    guard let meta = ISOBMFF.find(["meta"], in: file) else { return nil }
    let children = ISOBMFF.children(of: meta, in: file)
    guard let iref = children.first(where: { $0.type == "iref" }),
          let (version, entries) = ISOBMFF.referenceEntries(iref, in: file),
          let firstEntry = entries.first
    else { return nil }
    let references = entries.compactMap(\.reference)
    guard references.count == entries.count else { return nil }  // never rewrite what we cannot read
    let idSize = version == 0 ? 2 : 4
    let primary = children.first { $0.type == "pitm" }.flatMap { ISOBMFF.primaryItemID($0, in: file) }
    let items = children.first { $0.type == "iinf" }.map { ISOBMFF.items($0, in: file) } ?? []

    // Each entry as bytes: untouched ones verbatim, narrowed ones re-encoded.
    var encoded = entries.map { Array(file[$0.box.start..<$0.box.end]) }
    var changes: [String] = []
    for (index, reference) in references.enumerated() {
        guard HeifReferenceRepair.singleTargetTypes.contains(reference.type), reference.to.count > 1 else { continue }
        let kept = primary.flatMap { reference.to.contains($0) ? $0 : nil } ?? reference.to[0]
        encoded[index] = encodeReference(type: Array(reference.type.utf8), from: reference.from, to: [kept], idSize: idSize)
        let dropped = reference.to.filter { $0 != kept }.map(String.init).joined(separator: ", ")
        changes.append("\(reference.type) reference from item \(reference.from) now names only item \(kept) (dropped \(dropped))")
    }
    guard !changes.isEmpty else { return nil }

    let payload = firstEntry.box.start..<iref.end
    let gap = payload.count - encoded.reduce(0) { $0 + $1.count }
    let allIDs = items.map(\.id) + references.flatMap { [$0.from] + $0.to } + (primary.map { [$0] } ?? [])
    var nextFreeID = UInt64(allIDs.max() ?? 0) + 1
    let idLimit: UInt64 = version == 0 ? 0xFFFF : 0xFFFF_FFFF
    func unusedIDs(_ count: Int) -> [UInt32]? {
        guard count <= 0xFFFF, nextFreeID + UInt64(count) - 1 <= idLimit else { return nil }
        defer { nextFreeID += UInt64(count) }
        return (0..<UInt64(count)).map { UInt32(nextFreeID + $0) }
    }

    let minimalEntry = 8 + idSize + 2
    if let padCount = (1...2).first(where: { gap - $0 * minimalEntry >= 0 && (gap - $0 * minimalEntry) % idSize == 0 }) {
        for pad in 0..<padCount {
            let targetCount = pad == 0 ? (gap - padCount * minimalEntry) / idSize : 0
            guard let ids = unusedIDs(1 + targetCount) else { return nil }
            encoded.append(encodeReference(type: HeifReferenceRepair.paddingType, from: ids[0], to: Array(ids.dropFirst()), idSize: idSize))
        }
        changes.append("\(gap) freed bytes fill \(padCount == 1 ? "an 'ipad' padding reference" : "two 'ipad' padding references")")
    } else {
        let toneMaps = Set(items.filter { $0.type == "tmap" }.map(\.id))
        guard gap % idSize == 0,
              let index = references.firstIndex(where: { toneMaps.contains($0.from) }),
              references[index].to.count + gap / idSize <= 0xFFFF,
              let extra = unusedIDs(gap / idSize)
        else { return nil }
        let (box, reference) = (entries[index].box, references[index])
        encoded[index] = encodeReference(type: Array(file[box.start + 4..<box.start + 8]), from: reference.from,
                                         to: reference.to + extra, idSize: idSize)
        changes.append("\(gap) freed bytes fill extra ids on the \(reference.type) reference of tone-map item \(reference.from)")
    }

    let newPayload = encoded.flatMap { $0 }
    guard newPayload.count == payload.count else { return nil }
    var repaired = file
    repaired.replaceSubrange(payload, with: newPayload)
    return (repaired, changes.map { "iref: " + $0 })
}

/// One `iref` entry: size, type, from-id, count, to-ids (ids 16-bit or 32-bit).
private func encodeReference(type: [UInt8], from: UInt32, to: [UInt32], idSize: Int) -> [UInt8] {
    func bigEndian(_ value: UInt32, _ byteCount: Int) -> [UInt8] {
        (0..<byteCount).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }
    let size = 8 + idSize + 2 + idSize * to.count
    return bigEndian(UInt32(size), 4) + type + bigEndian(from, idSize) + bigEndian(UInt32(to.count), 2)
        + to.flatMap { bigEndian($0, idSize) }
}
