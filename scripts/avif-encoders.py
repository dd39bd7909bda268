#!/usr/bin/env python3
"""Bytes and CPU time at SSIMULACRA 2 = 80 for the AV1 encoders libavif can drive, against imgprep's AVIF.

Usage: scripts/avif-encoders.py IMGPREP PNG... > table.tsv

Each PNG (a corpus photo, made by `imgprep convert --to png --max-dimension 2048`) is encoded by
avifenc (libavif 0.11, one thread, 8-bit 4:2:0, --min Q --max Q) at several quantizers per encoder
setting, and by IMGPREP itself at several qualities; every output is scored against the PNG with
`IMGPREP compare` (imgprep's SSIMULACRA 2, checked against the reference in its tests). The bytes and the
CPU seconds (user + system of the encoding process, from getrusage) at score 80 are interpolated
between the two encodes that bracket it, in log bytes. Prints one row per setting: its median bytes
and CPU time relative to the baseline (the first setting), over the photos that bracket 80.
"""
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile

TARGET = 80.0

# (name, how to encode PNG `src` to `dst` at level `q`, the levels to try)
QUANTIZERS = [8, 12, 16, 22, 28, 34]


def avifenc(codec, speed, *extra):
    return lambda src, dst, q: ["avifenc", "-c", codec, "-s", str(speed), "-j", "1", "-d", "8", "-y", "420",
                                "--min", str(q), "--max", str(q), *extra, src, dst]


def settings(imgprep):
    rows = [("imgprep today (libheif, libaom speed 6)",
             lambda src, dst, q: [imgprep, "convert", src, "--to", "avif", "-q", str(q), "-o", os.path.dirname(dst),
                                  "--quiet", "-j", "1"],
             [50, 60, 70, 75, 80, 90])]
    for speed in (6, 7, 8, 9):
        rows.append((f"libavif aom speed {speed}", avifenc("aom", speed), QUANTIZERS))
    # libavif 0.11 clamps SVT-AV1's preset to 8, so its faster presets cannot be asked for.
    rows.append(("libavif SVT-AV1 preset 8", avifenc("svt", 8), QUANTIZERS))
    rows.append(("libavif rav1e speed 10", avifenc("rav1e", 10), QUANTIZERS))
    return rows


def run_timed(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def score(imgprep, reference, candidate):
    out = subprocess.run([imgprep, "compare", reference, candidate], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[0])


def at_target(points):
    """(bytes, seconds) at TARGET, interpolated in log bytes between the bracketing points; None if unbracketed."""
    points = sorted(points, key=lambda p: p[0])
    for (s0, b0, t0), (s1, b1, t1) in zip(points, points[1:]):
        if s0 <= TARGET <= s1 and s1 > s0:
            f = (TARGET - s0) / (s1 - s0)
            return math.exp(math.log(b0) + f * (math.log(b1) - math.log(b0))), t0 + f * (t1 - t0)
    return None


def main():
    imgprep, photos = sys.argv[1], sys.argv[2:]
    rows = settings(imgprep)
    results = {name: {} for name, _, _ in rows}
    with tempfile.TemporaryDirectory() as work:
        for photo in photos:
            stem = os.path.splitext(os.path.basename(photo))[0]
            for name, command, levels in rows:
                points = []
                for q in levels:
                    dst = os.path.join(work, f"{stem}.avif")
                    seconds = run_timed(command(photo, dst, q))
                    points.append((score(imgprep, photo, dst), os.path.getsize(dst), seconds))
                    os.remove(dst)
                results[name][stem] = at_target(points)
                print(f"{stem}\t{name}\t{results[name][stem]}\t{points}", file=sys.stderr, flush=True)
    baseline = results[rows[0][0]]
    print("setting\tphotos\tbytes at 80 (median, vs baseline)\tCPU s at 80 (median, vs baseline)")
    for name, _, _ in rows:
        common = [s for s in baseline if baseline[s] and results[name].get(s)]
        if not common:
            print(f"{name}\t0\t-\t-")
            continue
        bytes_ratio = statistics.median(results[name][s][0] / baseline[s][0] for s in common)
        time_ratio = statistics.median(results[name][s][1] / baseline[s][1] for s in common)
        median_time = statistics.median(results[name][s][1] for s in common)
        print(f"{name}\t{len(common)}\t{bytes_ratio:.3f}\t{time_ratio:.2f} ({median_time:.2f} s)")


if __name__ == "__main__":
    main()
