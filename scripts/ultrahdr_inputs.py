#!/usr/bin/env python3
"""Test helper: Ultra HDR JPEGs made by libultrahdr 1.4 (the imagecodecs wheel) from an HDR picture, and
the comparison of two files' HDR renditions as libultrahdr decodes them.

  ultrahdr_inputs.py make OUT.jpg --map colour|grey [--per-channel] [--width W --height H] [--from-heic HDR.heic]
  ultrahdr_inputs.py compare INPUT.jpg OUTPUT.jpg [--rot K]

make: a smooth HDR picture (linear light, SDR white = 1) whose colours brighten unequally, so libultrahdr
writes a colour (three-channel) gain map, as it does by default. --map grey re-encodes that map's picture
as one grey channel (its luma), keeping its ISO 21496-1 block: libultrahdr 1.4's API has no switch for a
grey map. --per-channel gives each of red, green and blue values of its own in the ISO block (the
multichannel flag and three sets: green and blue reach 0.8 and 0.6 of red's maximum boost).
--from-heic takes the HDR picture from a BT.2020 PQ HEIC instead (decoded by pillow-heif at 16 bits, PQ
to linear light with SDR white at 203 nits), encoded as BT.2100.

compare: the median error in stops, over every channel of the pixels that are not black, between
OUTPUT's HDR rendition and INPUT's turned by K quarter turns clockwise (EXIF orientation 6 is K=1) and
area-averaged to OUTPUT's size; and the same for the boost alone (the HDR rendition over the SDR one,
both as libultrahdr decodes them, averaged in stops), which a resize in the SDR picture's own encoding
(as imgprep, libvips and libultrahdr resize) leaves as it was on textured photos, where the rendition's
linear-light average does not. Prints JSON."""
import argparse, io, json, struct, sys
import numpy as np
import imagecodecs
from PIL import Image

ISO = b'urn:iso:std:iso:ts:21496:-1\x00'


def hdr_picture(width, height):
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    u, v = x / (width - 1), y / (height - 1)
    image = np.ones((height, width, 4), np.float32)
    # Smooth ramps that go past SDR white, each channel its own way, and a bright disc.
    disc = np.exp(-(((u - 0.7) / 0.18) ** 2 + ((v - 0.35) / 0.18) ** 2))
    image[..., 0] = 0.05 + 0.9 * u + 3.5 * disc
    image[..., 1] = 0.05 + 0.8 * v + 1.6 * disc
    image[..., 2] = 0.08 + 0.5 * (1 - u) * v + 0.7 * disc
    return image.astype(np.float16)


def segments(jpeg):
    """(marker, start, end) of each marker segment before the scan."""
    out, i = [], 2
    while i + 4 <= len(jpeg) and jpeg[i] == 0xFF:
        marker = jpeg[i + 1]
        if marker == 0xDA:
            break
        length = struct.unpack('>H', jpeg[i + 2:i + 4])[0]
        out.append((marker, i, i + 2 + length))
        i += 2 + length
    return out


def split(data):
    """The primary and the gain-map image (the second MPF image, which libultrahdr puts last)."""
    for marker, start, end in segments(data):
        payload = data[start + 4:end]
        if marker == 0xE2 and payload.startswith(b'MPF\x00'):
            tiff = start + 8
            endian = '>' if payload[4:6] == b'MM' else '<'
            ifd = struct.unpack(endian + 'I', payload[8:12])[0]
            count = struct.unpack(endian + 'H', payload[4 + ifd:6 + ifd])[0]
            for n in range(count):
                entry = payload[6 + ifd + 12 * n:18 + ifd + 12 * n]
                tag, _, _, value = struct.unpack(endian + 'HHII', entry)
                if tag == 0xB002:
                    second = payload[4 + value + 16:4 + value + 32]
                    _, size, offset, _, _ = struct.unpack(endian + 'IIIHH', second)
                    return data[:tiff + offset], data[tiff + offset:tiff + offset + size], (start, endian, value)
    raise SystemExit('no MPF index')


def join(primary, gain_map, index):
    """The file again with a new map: the MPF entry's size updated (its offset is unchanged)."""
    start, endian, value = index
    at = start + 4 + 4 + value + 16 + 4
    patched = bytearray(primary)
    patched[at:at + 4] = struct.pack(endian + 'I', len(gain_map))
    return bytes(patched) + gain_map


def with_segments(jpeg, kept):
    """`jpeg` (from Pillow, no APPn kept) with the segments `kept` after its SOI."""
    body = b''.join(kept)
    rest = jpeg[2:]
    for marker, start, end in segments(jpeg):
        if 0xE0 <= marker <= 0xEF:
            rest = jpeg[end:]
    return b'\xff\xd8' + body + rest


def iso_fractions(payload):
    """(flags, [(n, d) ...]) of an explicit single-channel block, or of a common-denominator one."""
    body = payload[len(ISO):]
    flags = body[4]
    values = body[5:]
    if flags & 0x08:
        d = struct.unpack('>I', values[:4])[0]
        numbers = struct.unpack('>IIiiIii', values[4:32])
        return flags, [(n, d) for n in numbers]
    fields = struct.unpack('>IIIIiIiIIIiIiI', values[:56])
    return flags, [(fields[i], fields[i + 1]) for i in range(0, 14, 2)]


def per_channel(payload):
    flags, fractions = iso_fractions(payload)
    base, alternate, minimum, maximum, gamma, offset_sdr, offset_hdr = fractions
    out = ISO + b'\x00\x00\x00\x00' + bytes([(flags & 0x40) | 0x80])
    out += struct.pack('>IIII', *base, *alternate)
    for factor in (1.0, 0.8, 0.6):
        channel_max = (int(round(maximum[0] * factor)), maximum[1])
        out += struct.pack('>iIiIIIiIiI', *minimum, *channel_max, *gamma, *offset_sdr, *offset_hdr)
    return out


def pq_picture(path):
    import pillow_heif
    heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=False)
    nclx = heif.info.get('nclx_profile') or {}
    if (nclx.get('color_primaries'), nclx.get('transfer_characteristics')) != (9, 16):
        raise SystemExit('not a BT.2020 PQ picture')
    encoded = np.asarray(heif, dtype=np.uint16)[..., :3].astype(np.float64) / 65535
    m1, m2, c1, c2, c3 = 2610 / 16384, 2523 / 4096 * 128, 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    power = encoded ** (1 / m2)
    nits = 10000 * (np.maximum(power - c1, 0) / (c2 - c3 * power)) ** (1 / m1)
    image = np.ones(encoded.shape[:2] + (4,), np.float32)
    image[..., :3] = nits / 203
    return image.astype(np.float16)


def make(args):
    if args.from_heic:
        data = imagecodecs.ultrahdr_encode(pq_picture(args.from_heic), gamut=imagecodecs.ULTRAHDR.CG.BT_2100)
    else:
        data = imagecodecs.ultrahdr_encode(hdr_picture(args.width, args.height))
    if args.map == 'grey' or args.per_channel:
        primary, gain_map, index = split(data)
        rebuilt, metadata = [], []
        for marker, start, end in segments(gain_map):
            segment = gain_map[start:end]
            if marker == 0xE2 and segment[4:].startswith(ISO) and args.per_channel:
                new = per_channel(segment[4:])
                segment = b'\xff\xe2' + struct.pack('>H', len(new) + 2) + new
            rebuilt.append(segment)
            if 0xE1 <= marker <= 0xEF:
                metadata.append(segment)
        if args.map == 'grey':
            buffer = io.BytesIO()
            Image.open(io.BytesIO(gain_map)).convert('L').save(buffer, 'JPEG', quality=95)
            gain_map = with_segments(buffer.getvalue(), metadata)
        else:
            gain_map = b'\xff\xd8' + b''.join(rebuilt) + gain_map[segments(gain_map)[-1][2]:]
        data = join(primary, gain_map, index)
    if not imagecodecs.ultrahdr_check(data):
        raise SystemExit('libultrahdr does not read what this made')
    open(args.output, 'wb').write(data)
    return 0


def area_resize(image, height, width):
    """Each output pixel the mean of the input pixels it covers (fractional edges weighted)."""
    def weights(source, target):
        matrix = np.zeros((target, source), np.float64)
        scale = source / target
        for t in range(target):
            a, b = t * scale, (t + 1) * scale
            for s in range(int(np.floor(a)), min(source, int(np.ceil(b)))):
                matrix[t, s] = min(b, s + 1) - max(a, s)
        return matrix / matrix.sum(axis=1, keepdims=True)
    rows, columns = weights(image.shape[0], height), weights(image.shape[1], width)
    tall = np.tensordot(rows, image, axes=(1, 0))               # (height, source width, channels)
    return np.tensordot(tall, columns, axes=(1, 1)).transpose(0, 2, 1)


def compare(args):
    source = open(args.input, 'rb').read()
    output = open(args.output, 'rb').read()
    if not imagecodecs.ultrahdr_check(output):
        print(json.dumps({'error': 'libultrahdr does not see an Ultra HDR image in the output'}))
        return 1

    def renditions(data):
        """The HDR and SDR renditions in linear light, in the same (the HDR rendition's) colour space."""
        hdr = imagecodecs.ultrahdr_decode(data, boost=10000.0)[..., :3].astype(np.float64)
        sdr = imagecodecs.ultrahdr_decode(data, boost=1.0)[..., :3].astype(np.float64)
        return hdr, sdr

    reference, reference_sdr = (np.rot90(a, -args.rot) for a in renditions(source))
    measured, measured_sdr = renditions(output)
    reference_boost = np.log2(np.maximum(reference, 1e-4) / np.maximum(reference_sdr, 1e-4))
    if reference.shape[:2] != measured.shape[:2]:
        reference = area_resize(reference, measured.shape[0], measured.shape[1])
        reference_sdr = area_resize(reference_sdr, measured.shape[0], measured.shape[1])
        reference_boost = area_resize(reference_boost, measured.shape[0], measured.shape[1])
    mask = reference > 0.02
    error = np.abs(np.log2(np.maximum(measured, 1e-4) / np.maximum(reference, 1e-4)))[mask]
    boost_mask = (reference_sdr > 0.02) & (measured_sdr > 0.02)
    measured_boost = np.log2(np.maximum(measured, 1e-4) / np.maximum(measured_sdr, 1e-4))
    boost_error = np.abs(measured_boost - reference_boost)[boost_mask]
    print(json.dumps({'width': measured.shape[1], 'height': measured.shape[0], 'samples': int(mask.sum()),
                      'median_error_stops': float(np.median(error)),
                      'p90_error_stops': float(np.percentile(error, 90)),
                      'boost_median_error_stops': float(np.median(boost_error)),
                      'boost_p90_error_stops': float(np.percentile(boost_error, 90)),
                      'reference_max': float(reference.max()), 'hdr_max': float(measured.max())}))
    return 0


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest='command', required=True)
    maker = commands.add_parser('make')
    maker.add_argument('output')
    maker.add_argument('--map', choices=['colour', 'grey'], default='colour')
    maker.add_argument('--per-channel', action='store_true')
    maker.add_argument('--width', type=int, default=480)
    maker.add_argument('--height', type=int, default=320)
    maker.add_argument('--from-heic')
    comparer = commands.add_parser('compare')
    comparer.add_argument('input')
    comparer.add_argument('output')
    comparer.add_argument('--rot', type=int, default=0)
    args = parser.parse_args()
    return make(args) if args.command == 'make' else compare(args)


if __name__ == '__main__':
    sys.exit(main())
