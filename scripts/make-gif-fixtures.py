#!/usr/bin/env python3
"""Writes the GIF test fixtures byte by byte (Python's standard library only), so every record is what
the tests say it is: disposal methods, offsets, local palettes, transparency, interlacing, loop
extensions, comments and XMP. Run by scripts/make-fixtures.sh; usage: make-gif-fixtures.py OUTDIR.

  still.gif            40x30, one frame, global palette, no Graphics Control Extension: opaque.
  still-interlaced.gif 33x21 (odd sizes), one interlaced frame with its own palette and a transparent
                       colour (a transparent stripe), on a 33x21 screen.
  disposal.gif         48x32, loops forever, 5 frames with a comment and an XMP packet:
                         1. the whole screen blue, keep, 200 ms
                         2. red 16x16 at (4,4), dispose to background (a transparent hole after), delay 0
                         3. green 16x16 at (24,8) with a transparent 4x4 centre, dispose to previous, 10 ms
                         4. yellow 8x8 at (10,20), local palette, keep, 300 ms
                         5. the same yellow 8x8 again (an identical canvas), keep, 100 ms
                       Composited as browsers do: 200 ms blue; 100 ms red square; 100 ms red square
                       cleared to transparent plus the green square; 300 ms (green gone, hole and yellow);
                       100 ms the same. Total 800 ms.
  no-loop.gif          32x24, 3 interlaced frames, each with its own palette, no NETSCAPE extension
                       (plays once), 150 ms each.
  loop-3.gif           24x16, 2 frames, NETSCAPE loop count 3 (4 plays), 50 ms each.
  wave.gif, orbit.gif, stripes.gif
                       Busy animations for the lossy comparisons with gif2webp: dithered gradients with
                       moving shapes (256-colour global palette), a frame-by-frame palette cycle with
                       transparency and sub-rectangles, and scrolling fine stripes.
"""
import math
import os
import sys


class BitWriter:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.bits = 0

    def write(self, code, size):
        self.acc |= code << self.bits
        self.bits += size
        while self.bits >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.bits -= 8

    def flush(self):
        if self.bits:
            self.out.append(self.acc & 0xFF)
        return bytes(self.out)


def lzw(indices, min_code_size):
    """GIF's variable-length LZW, clearing the table before it would pass 12-bit codes."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    writer = BitWriter()

    def reset():
        return {(i,): i for i in range(clear)}, min_code_size + 1, end + 1

    table, size, next_code = reset()
    writer.write(clear, size)
    prefix = ()
    for value in indices:
        extended = prefix + (value,)
        if extended in table:
            prefix = extended
            continue
        writer.write(table[prefix], size)
        if next_code < 4095:
            table[extended] = next_code
            next_code += 1
            if next_code > (1 << size) and size < 12:
                size += 1
        else:
            writer.write(clear, size)
            table, size, next_code = reset()
        prefix = (value,)
    if prefix:
        writer.write(table[prefix], size)
    writer.write(end, size)
    return writer.flush()


def sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        out += bytes([len(chunk)]) + chunk
    return bytes(out + b"\0")


def palette_bits(palette):
    """Size field and padded table bytes: tables hold 2^(n+1) entries."""
    n = 0
    while (2 << n) < len(palette):
        n += 1
    padded = list(palette) + [(0, 0, 0)] * ((2 << n) - len(palette))
    return n, b"".join(bytes(c) for c in padded)


def interlaced(rows):
    return [rows[y] for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for y in range(start, len(rows), step)]


def u16(v):
    return bytes([v & 0xFF, v >> 8])


def frame_bytes(f):
    out = bytearray()
    if f.get("gce", True):
        packed = (f.get("disposal", 0) << 2) | (1 if f.get("transparent") is not None else 0)
        out += b"\x21\xF9\x04" + bytes([packed]) + u16(f.get("delay", 0)) + bytes([f.get("transparent") or 0]) + b"\0"
    w, h = f["w"], f["h"]
    rows = [f["pixels"][y * w:(y + 1) * w] for y in range(h)]
    if f.get("interlace"):
        rows = interlaced(rows)
    flags = 0x40 if f.get("interlace") else 0
    local = b""
    if f.get("palette"):
        n, local = palette_bits(f["palette"])
        flags |= 0x80 | n
    out += b"\x2C" + u16(f.get("left", 0)) + u16(f.get("top", 0)) + u16(w) + u16(h) + bytes([flags]) + local
    min_code = max(2, (max(f["pixels"]) if f["pixels"] else 1).bit_length())
    out += bytes([min_code]) + sub_blocks(lzw([v for row in rows for v in row], min_code))
    return bytes(out)


def gif(width, height, frames, palette=None, loop=None, comment=None, xmp=None):
    out = bytearray(b"GIF89a" + u16(width) + u16(height))
    if palette:
        n, table = palette_bits(palette)
        out += bytes([0x80 | (7 << 4) | n, 0, 0]) + table
    else:
        out += bytes([0, 0, 0])
    if loop is not None:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + u16(loop) + b"\0"
    if comment:
        out += b"\x21\xFE" + sub_blocks(comment.encode())
    if xmp:
        # XMP is written raw (its bytes double as sub-block lengths), then the 258-byte magic trailer.
        out += b"\x21\xFF\x0BXMP DataXMP" + xmp.encode() + bytes([1] + list(range(255, -1, -1))) + b"\0"
    for f in frames:
        out += frame_bytes(f)
    return bytes(out + b"\x3B")


def rect(w, h, value):
    return [value] * (w * h)


CUBE = [(r * 51, g * 51, b * 51) for r in range(6) for g in range(6) for b in range(6)] + [(0, 0, 0)] * 40
BAYER = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]]


def dithered(w, h, colour):
    """A picture from colour(x, y) -> (r, g, b) in 0..1, ordered-dithered to the 6x6x6 cube."""
    pixels = []
    for y in range(h):
        for x in range(w):
            threshold = (BAYER[y % 4][x % 4] + 0.5) / 16 - 0.5
            r, g, b = (min(5, max(0, int(c * 5 + 0.5 + threshold))) for c in colour(x, y))
            pixels.append(r * 36 + g * 6 + b)
    return pixels


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    files = {}
    checker = [((x // 5 + y // 5) % 2) * 1 + (2 if x < 8 and y < 8 else 0) for y in range(30) for x in range(40)]
    files["still.gif"] = gif(40, 30, [dict(w=40, h=30, pixels=checker, gce=False)],
                             palette=[(240, 240, 240), (30, 60, 200), (220, 20, 20), (0, 0, 0)])

    stripes = [(0 if 9 <= y < 12 else 1 + (x + y) % 3) for y in range(21) for x in range(33)]
    files["still-interlaced.gif"] = gif(33, 21, [dict(w=33, h=21, pixels=stripes, interlace=True, transparent=0,
                                                      palette=[(0, 0, 0), (250, 200, 0), (0, 160, 80), (120, 0, 160)])])

    square = rect(16, 16, 2)
    holed = [(3 if 6 <= x < 10 and 6 <= y < 10 else 4) for y in range(16) for x in range(16)]
    files["disposal.gif"] = gif(48, 32, [
        dict(w=48, h=32, pixels=rect(48, 32, 1), delay=20),
        dict(left=4, top=4, w=16, h=16, pixels=square, disposal=2, delay=0),
        dict(left=24, top=8, w=16, h=16, pixels=holed, disposal=3, delay=1, transparent=3),
        dict(left=10, top=20, w=8, h=8, pixels=rect(8, 8, 1), delay=30, palette=[(0, 0, 0), (255, 230, 0)]),
        dict(left=10, top=20, w=8, h=8, pixels=rect(8, 8, 1), delay=10, palette=[(0, 0, 0), (255, 230, 0)]),
    ], palette=[(0, 0, 0), (20, 40, 220), (230, 20, 20), (0, 0, 0), (20, 200, 60)], loop=0,
        comment="imgprep fixture: disposal methods",
        xmp='<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Disposal '
            'fixture</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')

    no_loop = []
    for i, hue in enumerate([(200, 30, 30), (30, 200, 30), (30, 30, 200)]):
        pixels = [(1 if (x + 3 * i) % 8 < 4 else 2) if y % 6 else 3 for y in range(24) for x in range(32)]
        no_loop.append(dict(w=32, h=24, pixels=pixels, interlace=True, delay=15,
                            palette=[(0, 0, 0), hue, (255, 255, 255), (hue[2], hue[0], hue[1])]))
    files["no-loop.gif"] = gif(32, 24, no_loop)

    files["loop-3.gif"] = gif(24, 16, [dict(w=24, h=16, pixels=rect(24, 16, 1), delay=5),
                                       dict(w=24, h=16, pixels=rect(24, 16, 2), delay=5)],
                              palette=[(0, 0, 0), (255, 128, 0), (0, 128, 255), (0, 0, 0)], loop=3)

    wave = []
    for t in range(6):
        def colour(x, y, t=t):
            cx, cy = 24 + 14 * math.cos(t), 18 + 10 * math.sin(t)
            inside = (x - cx) ** 2 + (y - cy) ** 2 < 64
            r = 0.5 + 0.5 * math.sin(x / 7 + t / 2)
            return (1.0, 0.9, 0.2) if inside else (r, y / 36, 1 - x / 48)
        wave.append(dict(w=48, h=36, pixels=dithered(48, 36, colour), delay=8))
    files["wave.gif"] = gif(48, 36, wave, palette=CUBE, loop=0)

    orbit = [dict(w=40, h=40, pixels=dithered(40, 40, lambda x, y: (x / 40, 0.5, y / 40)), delay=6)]
    for t in range(1, 6):
        left, top = 4 + 4 * t, 20 - 3 * t
        pixels = [0 if (x - 6) ** 2 + (y - 6) ** 2 > 30 else 1 + (x + y + t) % 6 for y in range(12) for x in range(12)]
        palette = [(0, 0, 0)] + [(255, 40 * k, 255 - 40 * k) for k in range(6)] + [(0, 0, 0)]
        orbit.append(dict(left=left, top=top, w=12, h=12, pixels=pixels, transparent=0, palette=palette,
                          disposal=1 if t % 2 else 2, delay=6))
    files["orbit.gif"] = gif(40, 40, orbit, palette=CUBE, loop=0)

    scroll = []
    for t in range(5):
        scroll.append(dict(w=40, h=30, pixels=dithered(40, 30, lambda x, y, t=t: (
            0.5 + 0.5 * math.sin((x + 2 * t) * 1.3), 0.5 + 0.5 * math.cos((y - t) * 0.9), (x * y % 7) / 7)), delay=10))
    files["stripes.gif"] = gif(40, 30, scroll, palette=CUBE, loop=2)

    for name, data in files.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1])
