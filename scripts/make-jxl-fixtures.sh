#!/usr/bin/env bash
# Makes the JPEG XL fixtures in Tests/Fixtures/jxl with cjxl 0.7 (libjxl-tools), from drawn sources.
# Called by scripts/make-fixtures.sh; runs alone too. Needs: convert, exiftool, cjxl, jxlinfo.
#   lossy.jxl               96x64 lossy (-q 75), a bare codestream (starts FF 0A).
#   lossless-container.jxl  96x64 lossless (-d 0) in the ISO-BMFF container (--container=1).
#   alpha.jxl               64x64 lossless with alpha (red quarter, half-transparent blue quarter).
#   recompressed.jxl        the JPEG recompression of exif.jpg (jbrd box; djxl rebuilds exif.jpg byte for byte).
#   exif.jpg                the JPEG source of recompressed.jxl (EXIF with GPS 48.8584 N 2.2945 E, XMP title).
#   ../bad/truncated.jxl    the first 600 bytes of recompressed.jxl (its EXIF and XMP boxes, not its picture).
#   ../bad/truncated.jpg    exif.jpg cut halfway through its scan (a download cut short: --allow-truncated).
# (cjxl 0.7 drops a JPEG's metadata with -j 0 and cannot parse ImageMagick's PNG profiles: the lossy-with-metadata
# case is imgprep's own output, checked with exiftool in the tests.)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in convert exiftool cjxl jxlinfo; do
  command -v "$tool" >/dev/null || { echo "make-jxl-fixtures: $tool not found (run: make deps)" >&2; exit 1; }
done
out=Tests/Fixtures/jxl bad=Tests/Fixtures/bad
mkdir -p "$out" "$bad"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

convert -size 96x64 'gradient:#3060c0-#f0d060' -fill red -draw 'rectangle 0,0 23,15' "PNG24:$tmp/plain.png"
convert -size 64x64 xc:none -fill red -draw 'rectangle 0,0 31,31' \
  -fill 'rgba(0,0,255,0.5)' -draw 'rectangle 32,32 63,63' "PNG32:$tmp/alpha.png"
convert -size 160x120 'gradient:#204080-#f0c060' -fill red -draw 'rectangle 0,0 39,29' -quality 85 "$tmp/exif.jpg"
exiftool -q -overwrite_original -Make=ImgPrepTest -Model='Fixture Cam 1' -Orientation#=1 \
  -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E \
  -XMP-dc:Title='imgprep jxl fixture' "$tmp/exif.jpg"

cjxl --quiet -q 75 "$tmp/plain.png" "$tmp/lossy.jxl"
cjxl --quiet -d 0 --container=1 "$tmp/plain.png" "$tmp/lossless-container.jxl"
cjxl --quiet -d 0 "$tmp/alpha.png" "$tmp/alpha.jxl"
cjxl --quiet --lossless_jpeg=1 "$tmp/exif.jpg" "$tmp/recompressed.jxl"
head -c 600 "$tmp/recompressed.jxl" >"$tmp/truncated.jxl"
# truncated.jpg: exif.jpg's headers and the first half of its scan (a download cut short).
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); s = b.find(b"\xff\xda"); sys.stdout.buffer.write(b[:s + (len(b) - s) // 2])' \
  "$tmp/exif.jpg" >"$tmp/truncated.jpg"

for f in lossy lossless-container alpha recompressed; do mv "$tmp/$f.jxl" "$out/"; done
mv "$tmp/exif.jpg" "$out/"
mv "$tmp/truncated.jxl" "$tmp/truncated.jpg" "$bad/"
for f in "$out"/*.jxl "$out"/exif.jpg "$bad"/truncated.jxl; do
  size=$(wc -c <"$f")
  ((size < 30000)) || { echo "make-jxl-fixtures: $f is $size bytes, over 30000" >&2; exit 1; }
  printf '%-40s %6d bytes  %s\n' "$f" "$size" "$(jxlinfo "$f" 2>&1 | head -1)"
done
