#!/usr/bin/env python3
"""Prints the SSIMULACRA 2 score of two pictures by PyPI's `ssimulacra2` 0.3.0 (an independent
numpy/scipy port), the tests' second reader beside imgprep's own port.

    .venv-test/bin/python scripts/ssimulacra2_reference.py ORIGINAL.png DISTORTED.png

What that port does differently from the reference tool (so the tests allow for it): its Gaussian is
scipy's (true Gaussian, truncated at 3.33 sigma, mirrored at the left and right edges) instead of the
reference's recursive one with zero edges, it computes in double precision, it reads pixels as sRGB
whatever their ICC profile says, and it drops alpha (Pillow's convert("RGB")) instead of compositing.
"""
import sys

from ssimulacra2 import compute_ssimulacra2


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: ssimulacra2_reference.py ORIGINAL DISTORTED", file=sys.stderr)
        return 2
    print(f"{compute_ssimulacra2(sys.argv[1], sys.argv[2]):.8f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
