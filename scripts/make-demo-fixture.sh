#!/usr/bin/env bash
# Makes Tests/Fixtures/demo/phone-photo.heic, the picture `make demo` converts: photo-sized (4032x3024 as
# viewed, 12 MP) like a phone's HEIC, stored sideways (3024x4032) with an irot box and EXIF Orientation 6, with
# a camera, a date and a GPS position in its EXIF. A blurred plasma, a red block in the viewed top-left
# corner and an arrow pointing right, so an output that is not upright shows at a glance. Smooth on
# purpose: about 90 KB at heif-enc quality 40, small enough to commit.
# Needs: imagemagick (convert), libheif-examples (heif-enc), exiftool, python3 (`make deps`).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in convert heif-enc exiftool; do
  command -v "$tool" >/dev/null || { echo "make-demo-fixture: $tool not found (run: make deps)" >&2; exit 1; }
done
out=Tests/Fixtures/demo
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Drawn upright (4032x3024), then turned a quarter counter-clockwise for storage: Orientation 6 turns it back.
convert -size 1008x756 -seed 7 plasma:steelblue-khaki -blur 0x3 -resize '4032x3024!' \
  \( -size 4032x3024 xc:none -fill 'rgba(200,40,30,0.85)' -draw 'rectangle 0,0 600,450' \
     -fill white -stroke black -strokewidth 8 \
     -draw 'polygon 1400,1300 2600,1300 2600,1000 3200,1512 2600,2024 2600,1724 1400,1724' \) \
  -composite -rotate -90 -quality 92 "$tmp/phone.jpg"
exiftool -q -overwrite_original -Orientation#=6 -Make=ImgPrepDemo -Model='Demo Phone' \
  '-DateTimeOriginal=2026:06:21 12:00:00' -GPSLatitude=48.8584 -GPSLatitudeRef=N \
  -GPSLongitude=2.2945 -GPSLongitudeRef=E "$tmp/phone.jpg"
# heif-enc 1.15 copies the JPEG's EXIF into the HEIC but writes no irot: added as a phone has it (3 quarter
# turns anticlockwise), since in HEIF the boxes, not the EXIF tag, turn the picture.
heif-enc -q 40 "$tmp/phone.jpg" -o "$tmp/phone-photo.heic"
python3 scripts/heif-add-irot.py "$tmp/phone-photo.heic" 3
size=$(wc -c <"$tmp/phone-photo.heic")
((size < 200000)) || { echo "make-demo-fixture: $size bytes, over 200000" >&2; exit 1; }
mv "$tmp/phone-photo.heic" "$out/phone-photo.heic"
echo "$out/phone-photo.heic: $size bytes"
