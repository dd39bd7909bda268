#!/usr/bin/env python3
"""Compares two animations as a viewer shows them, read by Pillow (not by imgprep): usage
compare-animations.py REFERENCE CANDIDATE. Prints one JSON object: each file's frame count, total
duration (ms) and loop count, and the pictures shown at the middle of every frame's time of either file,
compared as premultiplied RGBA (a fully transparent pixel's colour does not count): the number of
samples, how many differ, the largest difference of one sample, and the PSNR (dB; 100 for identical)
of each sample and their mean. Used by the tests (Tests/ImagePrepTests/AnimationReferenceTests.swift)
through the venv `make testenv` creates.
"""
import json
import sys

import numpy
from PIL import Image


def timeline(path):
    image = Image.open(path)
    frames, start = [], 0
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        image.load()   # Pillow reads a WebP frame's duration when it decodes the frame
        duration = int(image.info.get("duration") or 0)
        rgba = numpy.asarray(image.convert("RGBA"), dtype=numpy.float64)
        premultiplied = rgba.copy()
        premultiplied[..., :3] *= rgba[..., 3:4] / 255
        frames.append((start, duration, premultiplied))
        start += duration
    return {"frames": len(frames), "duration": start, "loop": image.info.get("loop"), "size": image.size}, frames


def shown(frames, time):
    for start, duration, pixels in frames:
        if start <= time < start + duration:
            return pixels
    return frames[-1][2]


def main(reference_path, candidate_path):
    reference, reference_frames = timeline(reference_path)
    candidate, candidate_frames = timeline(candidate_path)
    times = sorted({start + duration / 2 for start, duration, _ in reference_frames + candidate_frames})
    psnrs, differing, largest = [], 0, 0.0
    for time in times:
        a, b = shown(reference_frames, time), shown(candidate_frames, time)
        if a.shape != b.shape:
            print(json.dumps({"error": f"sizes differ: {a.shape} and {b.shape}"}))
            return
        difference = numpy.abs(numpy.rint(a) - numpy.rint(b))
        largest = max(largest, float(difference.max()))
        differing += int(difference.max() > 0)
        mse = float((difference ** 2).mean())
        psnrs.append(100.0 if mse == 0 else min(100.0, 10 * numpy.log10(255 ** 2 / mse)))
    print(json.dumps({"reference": reference, "candidate": candidate, "samples": len(times),
                      "differing_samples": differing, "largest_difference": largest,
                      "psnr": psnrs, "mean_psnr": sum(psnrs) / len(psnrs)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
