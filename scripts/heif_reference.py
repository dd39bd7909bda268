#!/usr/bin/env python3
"""PSNR of pictures against an independent decode of a HEIF file: pillow-heif (its own libheif, 1.23 when
written) decodes the source, Pillow and pillow-heif decode each output (JPEG, PNG, WebP, AVIF, HEIC).
Prints one line per output: `<path> <PSNR in dB over R, G and B>`, or `<path> size WxH` when the sizes differ.

    .venv-test/bin/python scripts/heif_reference.py source.heic out.jpg out.webp
"""
import sys

import numpy as np
import pillow_heif
from PIL import Image

pillow_heif.register_heif_opener()


def rgb(path):
    with Image.open(path) as image:
        return np.asarray(image.convert('RGB'), dtype=np.float64)


def main():
    reference = rgb(sys.argv[1])
    for path in sys.argv[2:]:
        picture = rgb(path)
        if picture.shape != reference.shape:
            print(f'{path} size {picture.shape[1]}x{picture.shape[0]}')
            continue
        error = np.mean((picture - reference) ** 2)
        print(f'{path} {99.0 if error == 0 else 10 * np.log10(255 ** 2 / error):.4f}')


if __name__ == '__main__':
    main()
