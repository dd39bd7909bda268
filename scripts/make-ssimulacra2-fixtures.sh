#!/usr/bin/env bash
# Regenerates Tests/Fixtures/ssimulacra2/: small originals drawn here, their JPEG, WebP and AVIF
# distortions decoded back to PNG, and (when the reference tool is given) their reference scores.
#
#   SSIMULACRA2=/path/to/ssimulacra2 scripts/make-ssimulacra2-fixtures.sh
#
# The reference tool is cloudinary/ssimulacra2 (SSIMULACRA 2.1) built from its repository; CI has no
# network to build it, so its scores are recorded in reference-scores.tsv beside the pictures. Without
# SSIMULACRA2 the pictures are remade and the TSV is left as it is (the scores then no longer match
# if the pictures changed: rerun with the tool).
# Needs: imagemagick (convert), libjpeg-turbo-progs (cjpeg, djpeg), webp (cwebp, dwebp), libavif-bin
# (avifenc, avifdec), exiftool (`make deps`).
#
# Every PNG here has no gAMA/cHRM/sRGB chunks (the reference reads gAMA as a plain gamma curve rather
# than sRGB): pixels are sRGB unless the PNG has an iCCP chunk.
#   photo.png           128x96 RGB: a plasma fractal (seed 42, blurred: photo-like smooth areas) with drawn shapes and thin lines.
#   photo-*.png         photo.png through cjpeg -quality Q (4:2:0; q90-444 with -sample 1x1),
#                       cwebp -q Q, avifenc --min Q --max Q -s 8 (AV1 quantizer Q of 63), decoded back.
#   alpha.png           128x96 RGBA: photo.png with a radial alpha ramp (opaque centre, transparent corners).
#   alpha-webp-q60.png  alpha.png through cwebp -q 60 (lossless alpha), decoded back to RGBA.
#   p3.png              photo.png's pixels tagged Display P3 (iCCP: the profile of heic/gps-p3.heic).
#   p3-jpeg-q70.png     p3.png through cjpeg -quality 70 -icc, decoded back with the profile kept.
#   p3-untagged.png     p3.png's pixels without the profile (read as sRGB: the same numbers, other colours).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in convert cjpeg djpeg cwebp dwebp avifenc avifdec exiftool; do
  command -v "$tool" >/dev/null || { echo "make-ssimulacra2-fixtures: $tool not found (run: make deps)" >&2; exit 1; }
done
out=Tests/Fixtures/ssimulacra2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# PNG without ancillary colour chunks (and no dates, so the same pictures give the same bytes).
png() { convert "$1" -strip -define png:exclude-chunk=all "$2"; }

convert -seed 42 -size 128x96 plasma:fractal -blur 0x2 \
  -fill '#1a3c8c' -draw 'rectangle 10,10 45,40' -fill '#f0e6c8' -draw 'circle 90,35 90,15' \
  -stroke black -strokewidth 1 -draw 'line 5,75 123,60' -draw 'line 5,85 123,70' \
  -stroke white -draw 'line 60,5 70,90' "$tmp/photo.png"
png "$tmp/photo.png" "PNG24:$out/photo.png"
convert "$out/photo.png" "PPM:$tmp/photo.ppm"

for q in 20 50 75 90; do
  cjpeg -quality "$q" "$tmp/photo.ppm" >"$tmp/d.jpg"
  djpeg -pnm "$tmp/d.jpg" >"$tmp/d.ppm" && png "$tmp/d.ppm" "PNG24:$out/photo-jpeg-q$q.png"
done
cjpeg -quality 90 -sample 1x1 "$tmp/photo.ppm" >"$tmp/d.jpg"
djpeg -pnm "$tmp/d.jpg" >"$tmp/d.ppm" && png "$tmp/d.ppm" "PNG24:$out/photo-jpeg-q90-444.png"
for q in 30 60 90; do
  cwebp -quiet -q "$q" "$out/photo.png" -o "$tmp/d.webp"
  dwebp -quiet "$tmp/d.webp" -ppm -o "$tmp/d.ppm" && png "$tmp/d.ppm" "PNG24:$out/photo-webp-q$q.png"
done
for q in 40 25 10; do
  avifenc -s 8 --min "$q" --max "$q" "$out/photo.png" "$tmp/d.avif" >/dev/null
  avifdec "$tmp/d.avif" "$tmp/d.png" >/dev/null && png "$tmp/d.png" "PNG24:$out/photo-avif-q$q.png"
done

convert -size 128x96 radial-gradient:white-black -level 30%,90% "$tmp/mask.png"
convert "$out/photo.png" "$tmp/mask.png" -alpha off -compose CopyOpacity -composite "$tmp/alpha.png"
png "$tmp/alpha.png" "PNG32:$out/alpha.png"
cwebp -quiet -q 60 "$out/alpha.png" -o "$tmp/a.webp"
dwebp -quiet "$tmp/a.webp" -o "$tmp/a.png" && png "$tmp/a.png" "PNG32:$out/alpha-webp-q60.png"

exiftool -q -icc_profile -b Tests/Fixtures/heic/gps-p3.heic >"$tmp/p3.icc"
cp "$out/photo.png" "$out/p3.png"
exiftool -q -overwrite_original "-ICC_Profile<=$tmp/p3.icc" "$out/p3.png"
cjpeg -quality 70 -icc "$tmp/p3.icc" "$tmp/photo.ppm" >"$tmp/p3.jpg"
djpeg -pnm "$tmp/p3.jpg" >"$tmp/d.ppm" && png "$tmp/d.ppm" "PNG24:$out/p3-jpeg-q70.png"
exiftool -q -overwrite_original "-ICC_Profile<=$tmp/p3.icc" "$out/p3-jpeg-q70.png"
cp "$out/photo.png" "$out/p3-untagged.png"

pairs=(
  "photo.png photo.png"
  "photo.png photo-jpeg-q20.png" "photo.png photo-jpeg-q50.png" "photo.png photo-jpeg-q75.png"
  "photo.png photo-jpeg-q90.png" "photo.png photo-jpeg-q90-444.png"
  "photo.png photo-webp-q30.png" "photo.png photo-webp-q60.png" "photo.png photo-webp-q90.png"
  "photo.png photo-avif-q40.png" "photo.png photo-avif-q25.png" "photo.png photo-avif-q10.png"
  "alpha.png alpha-webp-q60.png"
  "p3.png p3-jpeg-q70.png" "p3.png p3-untagged.png"
)
if [ -n "${SSIMULACRA2:-}" ]; then
  tsv=$out/reference-scores.tsv
  {
    echo "# Reference scores: cloudinary/ssimulacra2 (SSIMULACRA 2.1, as its usage line says), built from a"
    echo "# source snapshot of github.com/cloudinary/ssimulacra2 (files dated 2025-05-05; no git commit in it)"
    echo "# with its bundled libjxl parts by its build_ssimulacra (CMake Release, system lcms2 2.14, libhwy 1.0.3),"
    echo "# run as: ssimulacra2 ORIGINAL DISTORTED (it prints the score)."
    echo "# Made by scripts/make-ssimulacra2-fixtures.sh with SSIMULACRA2 set."
    printf 'original\tdistorted\tscore\n'
    for pair in "${pairs[@]}"; do
      set -- $pair
      printf '%s\t%s\t%s\n' "$1" "$2" "$("$SSIMULACRA2" "$out/$1" "$out/$2")"
    done
  } >"$tsv.new"
  mv "$tsv.new" "$tsv"
fi
