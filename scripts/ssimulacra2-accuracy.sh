#!/usr/bin/env bash
# How far imgprep's SSIMULACRA 2 port is from the reference tool (and from PyPI's port) on corpus photos:
# each photo shrunk to 1536 pixels (stripped PNG, read as sRGB), then JPEG (cjpeg -quality 30/60/85/95,
# 4:2:0, and 90 with -sample 1x1), WebP (cwebp -q 40/75/92) and AVIF (avifenc --min Q --max Q, Q 45/30/15),
# decoded back to PNG; plus the corpus's Display P3 JPEG at cjpeg -quality 50/80/95 with its profile.
#
#   SSIMULACRA2=/path/to/ssimulacra2 [IMGPREP=.build/release/imgprep] [CORPUS=../shared/corpus] \
#     scripts/ssimulacra2-accuracy.sh [WORKDIR]
#
# Prints one line per pair (distorted, reference, imgprep, PyPI or NA) and the largest differences.
# Needs: imagemagick, libjpeg-turbo-progs, webp, libavif-bin, libheif-examples, exiftool; .venv-test with
# ssimulacra2 (make testenv) for the PyPI column.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${SSIMULACRA2:?set SSIMULACRA2 to the reference tool (cloudinary/ssimulacra2)}"
imgprep=${IMGPREP:-$root/.build/release/imgprep}
corpus=${CORPUS:-$root/../shared/corpus}
python=$root/.venv-test/bin/python
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"

png() { convert "$1" -strip -define png:exclude-chunk=all "PNG24:$2"; }
for src in jpeg/recurser__Landscape_1.jpg jpeg/recurser__Portrait_5.jpg jpeg/immich__empty_gps.jpg \
           jpeg/pillow__xmp_test.jpg jpeg/libvips__ultra-hdr.jpg heic/immich__IMG_2682.heic; do
  n=$(basename "${src%.*}")
  case $src in
    *.heic) heif-convert -q 100 "$corpus/$src" full.png >/dev/null; full=full.png ;;
    *) full=$corpus/$src ;;
  esac
  convert "$full" -auto-orient -resize 1536x1536 -strip -define png:exclude-chunk=all "PNG24:$n.png"
  convert "$n.png" PPM:o.ppm
  for q in 30 60 85 95; do cjpeg -quality $q o.ppm >t.jpg; djpeg -pnm t.jpg >t.ppm; png t.ppm "$n--jpeg$q.png"; done
  cjpeg -quality 90 -sample 1x1 o.ppm >t.jpg; djpeg -pnm t.jpg >t.ppm; png t.ppm "$n--jpeg90-444.png"
  for q in 40 75 92; do cwebp -quiet -q $q "$n.png" -o t.webp; dwebp -quiet t.webp -ppm -o t.ppm; png t.ppm "$n--webp$q.png"; done
  for q in 45 30 15; do avifenc -s 9 --min $q --max $q "$n.png" t.avif >/dev/null; avifdec t.avif t.png >/dev/null; png t.png "$n--avif$q.png"; done
done
exiftool -q -icc_profile -b "$corpus/jpeg/nuke__image-p3.jpg" >p3.icc
png "$corpus/jpeg/nuke__image-p3.jpg" p3.png
exiftool -q -overwrite_original "-ICC_Profile<=p3.icc" p3.png
convert p3.png PPM:o.ppm
for q in 50 80 95; do cjpeg -quality $q -icc p3.icc o.ppm >"p3--jpeg$q.jpg"; done
rm -f t.* o.ppm full.png

for d in *--*.png p3--*.jpg; do
  o=${d%%--*}.png
  pypi=NA
  # PyPI's port reads every picture as sRGB: no column for the P3 pairs.
  if [ "$o" != p3.png ] && [ -x "$python" ]; then pypi=$("$python" "$root/scripts/ssimulacra2_reference.py" "$o" "$d"); fi
  printf '%s\t%s\t%s\t%s\n' "$d" "$("$SSIMULACRA2" "$o" "$d")" "$("$imgprep" compare "$o" "$d")" "$pypi"
done | tee results.tsv
awk -F'\t' '{ d = $3 - $2; if (d < 0) d = -d; if (d > m) m = d; s += d; n++
              if ($4 != "NA") { e = $4 - $2; if (e < 0) e = -e; if (e > p) p = e; k++ } }
     END { printf "%d pairs: imgprep within %.3f of the reference (mean %.3f); PyPI within %.3f on %d\n", n, m, s / n, p, k }' results.tsv
