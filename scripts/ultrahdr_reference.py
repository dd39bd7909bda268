#!/usr/bin/env python3
"""Test helper: decodes an Ultra HDR JPEG with libultrahdr (the imagecodecs wheel) and compares its
HDR rendition with a reference made from the SOURCE's own gain map and formula.

  ultrahdr_reference.py OUTPUT.jpg MAP.pgm --rot K [--flip] (--apple-headroom H | --ultrahdr MIN MAX GAMMA OSDR OHDR)

MAP.pgm is the source's map as stored (binary PGM); --rot K turns it by K quarter turns anticlockwise
(numpy.rot90) to the picture's upright geometry, then it is resampled bilinearly to the output size.
Apple: HDR = SDR * (1 + (H - 1) * g(map)), g the inverse Rec.709 curve. Ultra HDR (v1.0 terms):
HDR = (SDR + OSDR) * 2^(MIN + (MAX - MIN) * map^(1/GAMMA)) - OHDR.
SDR is the output's own base picture (as libultrahdr decodes it), linearised with the sRGB curve.
Prints JSON: the median error in stops over the pixels the reference brightens by 1/4 stop or more,
and the ratio of the brightest 0.1% (measured / reference)."""
import argparse, json, sys
import numpy as np
import imagecodecs


def read_pgm(path):
    data = open(path, 'rb').read()
    parts = data.split(maxsplit=4)
    assert parts[0] == b'P5', 'binary PGM expected'
    width, height, maxval = int(parts[1]), int(parts[2]), int(parts[3])
    assert maxval == 255
    pixels = np.frombuffer(parts[4][:width * height], dtype=np.uint8)
    return pixels.reshape(height, width).astype(np.float32) / 255


def bilinear(plane, height, width):
    ys = (np.arange(height) + 0.5) * plane.shape[0] / height - 0.5
    xs = (np.arange(width) + 0.5) * plane.shape[1] / width - 0.5
    ys = np.clip(ys, 0, plane.shape[0] - 1)
    xs = np.clip(xs, 0, plane.shape[1] - 1)
    y0 = np.floor(ys).astype(int); x0 = np.floor(xs).astype(int)
    y1 = np.minimum(y0 + 1, plane.shape[0] - 1); x1 = np.minimum(x0 + 1, plane.shape[1] - 1)
    fy = (ys - y0)[:, None]; fx = (xs - x0)[None, :]
    top = plane[y0][:, x0] * (1 - fx) + plane[y0][:, x1] * fx
    bottom = plane[y1][:, x0] * (1 - fx) + plane[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('output'); parser.add_argument('map')
    parser.add_argument('--rot', type=int, default=0)
    parser.add_argument('--flip', action='store_true', help='mirror left-right after turning')
    parser.add_argument('--apple-headroom', type=float)
    parser.add_argument('--ultrahdr', type=float, nargs=5)
    args = parser.parse_args()
    data = open(args.output, 'rb').read()
    if not imagecodecs.ultrahdr_check(data):
        print(json.dumps({'error': 'libultrahdr does not see an Ultra HDR image'})); return 1
    hdr = imagecodecs.ultrahdr_decode(data, boost=10000.0)[..., 1].astype(np.float32)   # green: one channel is enough
    sdr = imagecodecs.ultrahdr_decode(data, dtype=np.uint8)[..., 1].astype(np.float32) / 255
    height, width = hdr.shape
    plane = np.rot90(read_pgm(args.map), args.rot)
    if args.flip: plane = plane[:, ::-1]
    plane = bilinear(np.ascontiguousarray(plane), height, width)
    linear = srgb_to_linear(sdr)
    if args.apple_headroom:
        h = args.apple_headroom
        g = np.where(plane < 0.081, plane / 4.5, ((plane + 0.099) / 1.099) ** (1 / 0.45))
        reference = linear * (1 + (h - 1) * g)
        boost = 1 + (h - 1) * g
    else:
        lo, hi, gamma, osdr, ohdr = args.ultrahdr
        log_boost = lo + (hi - lo) * plane ** (1 / gamma)
        reference = (linear + osdr) * np.exp2(log_boost) - ohdr
        boost = np.exp2(log_boost)
    # Where the map brightens by a quarter stop or more and the picture is not black.
    mask = (boost >= 2 ** 0.25) & (linear > 0.02)
    error = np.abs(np.log2(np.maximum(hdr[mask], 1e-4) / np.maximum(reference[mask], 1e-4)))
    bright = np.percentile(hdr, 99.9) / max(np.percentile(reference, 99.9), 1e-6)
    print(json.dumps({'pixels': int(mask.sum()), 'median_error_stops': float(np.median(error)) if error.size else None,
                      'brightest_ratio': float(bright), 'width': width, 'height': height,
                      'hdr_max': float(hdr.max()), 'reference_max': float(reference.max())}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
