#!/usr/bin/env python3
"""Adds an `irot` (rotation) property to a HEIF file's primary item, as phones write it, since
heif-enc 1.15 cannot: `heif-add-irot.py FILE ANGLE` with ANGLE in quarter turns anticlockwise (1-3).
Rewrites FILE in place. Handles what heif-enc writes: ftyp, meta (pitm, iloc with file offsets,
iprp/ipco/ipma), then mdat; the boxes around the new property grow, and every iloc offset moves by
the bytes added before mdat."""
import struct
import sys


def boxes(data, start, end):
    """(type, start, header size, end) of each box in data[start:end]."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, at)
        header = 8
        if size == 1:
            size, header = struct.unpack_from(">Q", data, at + 8)[0], 16
        elif size == 0:
            size = end - at
        if size < header or at + size > end:
            raise SystemExit(f"heif-add-irot: box {kind!r} at {at} runs past its parent")
        yield kind.decode("latin-1"), at, header, at + size
        at += size


def child(data, parent, kind, full=False):
    _, start, header, end = parent
    start += header + (4 if full else 0)
    for box in boxes(data, start, end):
        if box[0] == kind:
            return box
    raise SystemExit(f"heif-add-irot: no {kind} box")


def uint(data, at, size):
    return int.from_bytes(data[at:at + size], "big") if size else 0


def main():
    path, angle = sys.argv[1], int(sys.argv[2])
    if angle not in (1, 2, 3):
        raise SystemExit("heif-add-irot: ANGLE is 1, 2 or 3 quarter turns anticlockwise")
    data = bytearray(open(path, "rb").read())
    meta = next(b for b in boxes(data, 0, len(data)) if b[0] == "meta")
    primary = struct.unpack_from(">H", data, child(data, meta, "pitm", full=True)[1] + 12)[0]
    iprp = child(data, meta, "iprp", full=True)
    ipco, ipma = child(data, iprp, "ipco"), child(data, iprp, "ipma")
    index = sum(1 for _ in boxes(data, ipco[1] + ipco[2], ipco[3])) + 1
    # ipma: version 0 and flags 0 (1-byte associations) is what heif-enc writes.
    version, flags = data[ipma[1] + 8], uint(data, ipma[1] + 9, 3)
    if version != 0 or flags & 1 or index > 127:
        raise SystemExit("heif-add-irot: only version-0 ipma with 1-byte indices")
    at = ipma[1] + 12
    count = struct.unpack_from(">I", data, at)[0]
    at += 4
    for _ in range(count):
        item, associations = struct.unpack_from(">HB", data, at)
        if item == primary:
            insert_association = at + 3 + associations
            data[at + 2] = associations + 1
            break
        at += 3 + associations
    else:
        raise SystemExit("heif-add-irot: the primary item has no ipma entry")
    irot = struct.pack(">I4sB", 9, b"irot", angle)
    # Insert the later position first so the earlier one stays valid; the association marks it essential.
    data[insert_association:insert_association] = bytes([0x80 | index])
    data[ipco[3]:ipco[3]] = irot
    added = len(irot) + 1
    for box, grew in ((meta, added), (iprp, added), (ipco, len(irot))):
        struct.pack_into(">I", data, box[1], struct.unpack_from(">I", data, box[1])[0] + grew)
    ipma_start = ipma[1] + len(irot)  # ipma comes after ipco inside iprp
    struct.pack_into(">I", data, ipma_start, struct.unpack_from(">I", data, ipma_start)[0] + 1)
    # iloc precedes iprp in heif-enc's files, so it has not moved: shift its file offsets.
    iloc = child(data, meta, "iloc", full=True)
    if iloc[1] > iprp[1]:
        raise SystemExit("heif-add-irot: iloc after iprp")
    version = data[iloc[1] + 8]
    at = iloc[1] + 12
    offset_size, length_size = data[at] >> 4, data[at] & 15
    base_size, index_size = data[at + 1] >> 4, (data[at + 1] & 15 if version in (1, 2) else 0)
    at += 2
    count = uint(data, at, 2 if version < 2 else 4)
    at += 2 if version < 2 else 4
    for _ in range(count):
        at += 2 if version < 2 else 4
        method = 0
        if version in (1, 2):
            method = uint(data, at, 2) & 15
            at += 2
        at += 2  # data_reference_index
        if method == 0 and base_size:
            data[at:at + base_size] = (uint(data, at, base_size) + added).to_bytes(base_size, "big")
        base = uint(data, at, base_size)
        at += base_size
        extents = uint(data, at, 2)
        at += 2
        for _ in range(extents):
            at += index_size
            if method == 0 and not base and offset_size:
                data[at:at + offset_size] = (uint(data, at, offset_size) + added).to_bytes(offset_size, "big")
            at += offset_size + length_size
    open(path, "wb").write(data)


main()
