#!/bin/bash
# How JPEG XL's default quality and effort were chosen (docs/formats.md): the corpus photos at a
# 2048-pixel long edge, JPEG at quality 85 (imgprep's JPEG default) against cjxl at a range of qualities
# and efforts, every output scored against the same reference PNG by the reference SSIMULACRA 2
# (cloudinary/ssimulacra2, built as ../shared/NOTES.md says). imgprep maps --quality to libjxl's distance
# exactly as cjxl 0.7 does, so cjxl's -q stands for imgprep's --quality here.
#
#   SSIMULACRA2=/path/to/ssimulacra2 bash scripts/jxl-defaults.sh [corpus]
#
# Prints, per photo, the JPEG q85 score and the JPEG XL quality with the same score (interpolated), then
# bytes, CPU seconds and mean score per effort at the chosen quality. Not part of the tests: it takes
# about 15 minutes on two cores and needs the reference scorer, which Debian does not ship.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/corpus}
S=${SSIMULACRA2:?set SSIMULACRA2 to the reference ssimulacra2 binary}
IMGPREP=${IMGPREP:-.build/static/release/imgprep}
QUALITY=${JXL_QUALITY:-86}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
photos=(jpeg/immich__craft-beer.jpg jpeg/immich__empty_gps.jpg jpeg/libvips__ultra-hdr.jpg jpeg/pillow__xmp_test.jpg
        jpeg/recurser__Landscape_0.jpg jpeg/recurser__Portrait_5.jpg heic/immich__IMG_2682.heic
        heic/immich__samsung-one-ui-6.heic heic/libvips__oneplus-heic.heic heic/nuke__img_751.heic
        heic/libvips__apple-heic-gainmap.heic heic/libvips__Example1.heic)
for p in "${photos[@]}"; do
  "$IMGPREP" convert "$CORPUS/$p" --to png --max-dimension 2048 --color srgb --hdr drop --strip-metadata -o "$T/" --quiet
done
: >"$T/scores.tsv"; : >"$T/effort.tsv"
for ref in "$T"/*.png; do
  n=$(basename "$ref" .png)
  "$IMGPREP" convert "$ref" --to jpeg --quality 85 -o "$T/$n.jpg" --quiet
  printf '%s\tjpeg\t85\t%s\t%s\n' "$n" "$(stat -c %s "$T/$n.jpg")" "$("$S" "$ref" "$T/$n.jpg")" >>"$T/scores.tsv"
  for q in 70 74 78 80 82 84 86 88 90 92 94 96; do
    cjxl -q "$q" -e 7 "$ref" "$T/o.jxl" >/dev/null 2>&1 && djxl "$T/o.jxl" "$T/o.png" >/dev/null 2>&1
    printf '%s\tjxl\t%s\t%s\t%s\n' "$n" "$q" "$(stat -c %s "$T/o.jxl")" "$("$S" "$ref" "$T/o.png")" >>"$T/scores.tsv"
  done
  for e in 3 4 5 6 7 8; do
    /usr/bin/time -f '%U %S' -o "$T/t" cjxl -q "$QUALITY" -e "$e" --num_threads=0 "$ref" "$T/o.jxl" >/dev/null 2>&1
    djxl "$T/o.jxl" "$T/o.png" >/dev/null 2>&1
    printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$e" "$(stat -c %s "$T/o.jxl")" "$(awk '{print $1 + $2}' "$T/t")" "$("$S" "$ref" "$T/o.png")" >>"$T/effort.tsv"
  done
done
# Lossless (distance 0) on one photo: effort against bytes and CPU time.
echo 'lossless, libvips__Example1 at 2048 px: effort | bytes | CPU s'
for e in 1 3 4 5 7; do
  /usr/bin/time -f '%U %S' -o "$T/t" cjxl -d 0 -e "$e" --num_threads=0 "$T/libvips__Example1.png" "$T/o.jxl" >/dev/null 2>&1
  echo "$e | $(stat -c %s "$T/o.jxl") | $(awk '{print $1 + $2}' "$T/t")"
done
python3 - "$T/scores.tsv" "$T/effort.tsv" <<'PY'
import collections, csv, math, statistics, sys
scores = collections.defaultdict(dict)
for n, kind, q, b, s in csv.reader(open(sys.argv[1]), delimiter='\t'):
    scores[n][(kind, int(q))] = (int(b), float(s))
matches = []
print('photo | JPEG q85 score | JPEG XL quality with that score | its bytes / the JPEG\'s')
for n, d in sorted(scores.items()):
    jb, js = d[('jpeg', 85)]
    qs = sorted(q for k, q in d if k == 'jxl')
    for a, b in zip(qs, qs[1:]):
        (ba, sa), (bb, sb) = d[('jxl', a)], d[('jxl', b)]
        if min(sa, sb) <= js <= max(sa, sb) and sa != sb:
            t = (js - sa) / (sb - sa)
            matches.append(a + t * (b - a))
            print(f'{n} | {js:.2f} | {matches[-1]:.1f} | {math.exp(math.log(ba) + t * math.log(bb / ba)) / jb:.2f}')
            break
    else:
        print(f'{n} | {js:.2f} | outside {qs[0]}-{qs[-1]} | -')
print(f'median matching quality {statistics.median(matches):.2f} over {len(matches)} photos')
for q in (84, 86, 88):
    print(f'mean score at JPEG XL q{q}: {statistics.mean(d[("jxl", q)][1] for d in scores.values()):.2f};',
          f'JPEG q85: {statistics.mean(d[("jpeg", 85)][1] for d in scores.values()):.2f}')
effort = collections.defaultdict(list)
for n, e, b, c, s in csv.reader(open(sys.argv[2]), delimiter='\t'):
    effort[int(e)].append((int(b), float(c), float(s)))
base = sum(b for b, _, _ in effort[7])
print('effort | bytes / effort 7 | CPU s | mean score')
for e, v in sorted(effort.items()):
    print(f'{e} | {sum(b for b, _, _ in v) / base:.3f} | {sum(c for _, c, _ in v):.2f} | {statistics.mean(s for _, _, s in v):.2f}')
PY
