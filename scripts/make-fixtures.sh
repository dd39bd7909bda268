#!/usr/bin/env bash
# Regenerates the small HEIC test fixtures from images drawn here (nothing copied from elsewhere).
# Needs: imagemagick (convert), libheif-examples 1.15 (heif-enc, heif-info), exiftool, perl (`make deps`).
# Every picture has a red block in the stored top-left corner and (the bigger ones) a black arrow
# pointing right, so a rotated or mirrored output is visible at a glance.
#
# Tests/Fixtures/heic/ (good files only):
#   gps-p3.heic       320x240, 8-bit 4:2:0, ICC "Display P3" (colr prof), EXIF Make/Model/DateTimeOriginal/
#                     OffsetTimeOriginal/LensModel/ExposureTime/FNumber/ISO, Orientation 1,
#                     GPS 48.8584 N 2.2945 E, alt 35 m, direction 123.4 T, and an XMP block (dc:title, Rating 3).
#   orientation-6.heic  stored pixels 240x160 (landscape), EXIF Orientation=6, NO irot/imir box: libheif
#                     decodes it 240x160 unrotated; a viewer that honours EXIF shows 160x240 with the red
#                     block top-right and the arrow pointing down.
#   alpha.heic        64x64 with an alpha aux image: top-left quarter opaque red, bottom-right half-transparent
#                     blue, the rest fully transparent.
#   10bit.heic        64x48, 10-bit RGB (from a 16-bit PNG with heif-enc -b 10).
#   gray.heic         64x48, 8-bit monochrome (hvcC chroma format 0).
#   10bit-p3.heic     64x48, 10-bit, ICC "Display P3": a saturated green-to-red gradient (far outside sRGB).
#   10bit and gray are under x265's 64x64 minimum, so heif-enc stores them as a 1-tile 'grid' item (id 2).
# Tests/Fixtures/webp/ (made with cwebp, img2webp and webpmux from the same drawings):
#   exif-icc.webp     320x240 lossy, from the gps-p3 drawing: EXIF (camera, GPS), XMP and the Display P3
#                     profile as EXIF/XMP/ICCP chunks of an extended (VP8X) file.
#   orientation-6.webp  stored 240x160, EXIF Orientation 6 (turned 90° clockwise to view).
#   lossless-alpha.webp  64x64 lossless (VP8L) with alpha, the alpha.png drawing.
#   animated.webp     48x32, two frames: red, then blue.
# Tests/Fixtures/gif/ (written byte by byte by scripts/make-gif-fixtures.py, which lists them: stills, every
#   disposal method, offsets, local palettes, transparency, interlacing, loop counts, a comment and XMP).
# Tests/Fixtures/bad/ (error paths):
#   not-heif.heic     ftyp with major brand 'qt  ' and a few more box bytes: a QuickTime file, not HEIF.
#   truncated.heic    first half of gps-p3.heic (meta box intact, mdat cut short).
#   truncated.webp    first 1000 bytes of webp/exif-icc.webp (the VP8 chunk cut short).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in convert heif-enc heif-info exiftool perl cwebp img2webp webpmux python3; do
  command -v "$tool" >/dev/null || { echo "make-fixtures: $tool not found (run: make deps)" >&2; exit 1; }
done
good=Tests/Fixtures/heic bad=Tests/Fixtures/bad webp=Tests/Fixtures/webp
mkdir -p "$good" "$bad" "$webp"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A Display P3 ICC v4 matrix/TRC profile, written from the published constants (D50-adapted primaries,
# sRGB transfer curve). Debian ships no Display P3 profile, and we don't copy one from device photos.
perl - >"$tmp/p3.icc" <<'PERL'
use strict;
sub s15 { my $v = shift; pack 'N', ($v < 0 ? 2**32 + int($v * 65536 - 0.5) : int($v * 65536 + 0.5)) }
sub xyz { 'XYZ ' . "\0" x 4 . join '', map { s15($_) } @_ }
sub mluc { my $u = join '', map { pack 'n', ord } split //, shift;
  'mluc' . "\0" x 4 . pack('NN', 1, 12) . 'enUS' . pack('NN', length $u, 28) . $u }
my @tags = (
  [desc => mluc('Display P3')], [cprt => mluc('No copyright, use freely')],
  [wtpt => xyz(0.964203, 1.0, 0.824905)],
  [rXYZ => xyz(0.515121, 0.241196, -0.001053)], [gXYZ => xyz(0.291977, 0.692245, 0.041885)],
  [bXYZ => xyz(0.157104, 0.066574, 0.784073)],
  [rTRC => 'para' . "\0" x 4 . pack('nn', 3, 0) . join '', map { s15($_) } 2.4, 0.947867, 0.052133, 0.077399, 0.04045],
  [chad => 'sf32' . "\0" x 4 . join '', map { s15($_) }
    1.047882, 0.022919, -0.050201, 0.029587, 0.990479, -0.017059, -0.009232, 0.015076, 0.751678],
  [gTRC => undef], [bTRC => undef]);    # undef: share rTRC's data
my $off = 128 + 4 + 12 * @tags; my ($table, $data, %at) = ('', '');
for (@tags) {
  my ($sig, $d) = @$_;
  if (defined $d) { $d .= "\0" x ((4 - length($d) % 4) % 4); $at{$sig} = [$off + length $data, length $d]; $data .= $d }
  else { $at{$sig} = $at{rTRC} }
  $table .= $sig . pack 'NN', @{ $at{$sig} };
}
my $hdr = pack('N', $off + length $data) . "\0" x 4 . pack('N', 0x04300000) . 'mntrRGB XYZ '
  . pack('n6', 2024, 1, 1, 0, 0, 0) . 'acsp' . "\0" x 24 . pack('N', 0)
  . s15(0.9642) . s15(1.0) . s15(0.8249) . "\0" x 48;
binmode STDOUT; print $hdr, pack('N', scalar @tags), $table, $data;
PERL

# W x H canvas with a gradient, the red block (a quarter of each side) and, if big enough, the arrow.
draw() {
  local w=$1 h=$2 grad=$3 out=$4 arrow=()
  if ((w >= 160)); then
    local x=$((w * 3 / 8)) y=$((h / 2)) s=$((h / 8))
    arrow=(-fill black -draw "polygon $x,$((y - s)) $((x + 3 * s)),$((y - s)) $((x + 3 * s)),$((y - 2 * s)) $((x + 5 * s)),$y $((x + 3 * s)),$((y + 2 * s)) $((x + 3 * s)),$((y + s)) $x,$((y + s))")
  fi
  convert -size "${w}x$h" "gradient:$grad" -fill red -draw "rectangle 0,0 $((w / 4 - 1)),$((h / 4 - 1))" \
    "${arrow[@]}" "$out"
}

# gps-p3: heif-enc copies the JPEG's EXIF (APP1), XMP and ICC profile (APP2) into the HEIC.
draw 320 240 '#3060c0-#f0d060' "$tmp/gps.jpg"
exiftool -q -overwrite_original "-ICC_Profile<=$tmp/p3.icc" \
  -Make=ImgPrepTest -Model='Fixture Cam 1' -LensModel='Fixture Lens 4.2mm f/1.8' \
  '-DateTimeOriginal=2024:05:17 14:30:05' -OffsetTimeOriginal=+02:00 -ExposureTime=0.004 -FNumber=1.8 -ISO=100 \
  -Orientation#=1 -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E \
  -GPSAltitude=35 -GPSAltitudeRef#=0 -GPSImgDirection=123.4 -GPSImgDirectionRef=T \
  -XMP-dc:Title='imgprep fixture' -XMP-xmp:Rating=3 "$tmp/gps.jpg"
heif-enc -q 60 "$tmp/gps.jpg" -o "$tmp/gps-p3.heic"

# orientation-6: only the EXIF tag says "rotate"; heif-enc 1.15 writes no irot/imir.
draw 240 160 '#204080-#80c0f0' "$tmp/o6.jpg"
exiftool -q -overwrite_original -Orientation#=6 -Make=ImgPrepTest -Model='Fixture Cam 1' "$tmp/o6.jpg"
heif-enc -q 60 "$tmp/o6.jpg" -o "$tmp/orientation-6.heic"

# alpha: heif-enc keeps a PNG's alpha as an auxiliary alpha image.
convert -size 64x64 xc:none -fill red -draw 'rectangle 0,0 31,31' \
  -fill 'rgba(0,0,255,0.5)' -draw 'rectangle 32,32 63,63' "PNG32:$tmp/alpha.png"
heif-enc -q 60 "$tmp/alpha.png" -o "$tmp/alpha.heic"

# 10bit: heif-enc only makes >8-bit output from a 16-bit PNG.
convert -size 64x48 'gradient:#000000-#ffa040' -fill red -draw 'rectangle 0,0 15,11' -depth 16 "PNG48:$tmp/10.png"
heif-enc -q 60 -b 10 "$tmp/10.png" -o "$tmp/10bit.heic"

# 10bit-p3: a 16-bit PNG labelled Display P3 (-profile assigns it: the pixels are not converted).
convert -size 64x48 'gradient:#20c040-#f04010' -depth 16 "PNG48:$tmp/p3-16.png"
convert "$tmp/p3-16.png" -profile "$tmp/p3.icc" "PNG48:$tmp/p3-16-icc.png"
heif-enc -q 90 -b 10 "$tmp/p3-16-icc.png" -o "$tmp/10bit-p3.heic"

# gray: a grayscale PNG becomes a monochrome (4:0:0) HEVC image.
convert -size 64x48 gradient: -fill black -draw 'rectangle 0,0 15,11' -type Grayscale -depth 8 -define png:color-type=0 "$tmp/g.png"
heif-enc -q 60 "$tmp/g.png" -o "$tmp/gray.heic"

# WebP: cwebp copies a JPEG's EXIF, XMP and ICC profile into chunks with -metadata all.
cwebp -quiet -q 75 -metadata all "$tmp/gps.jpg" -o "$tmp/exif-icc.webp"
cwebp -quiet -q 75 -metadata exif "$tmp/o6.jpg" -o "$tmp/orientation-6.webp"
cwebp -quiet -lossless -exact "$tmp/alpha.png" -o "$tmp/lossless-alpha.webp"
convert -size 48x32 xc:red "$tmp/frame1.png"
convert -size 48x32 xc:blue "$tmp/frame2.png"
img2webp -loop 0 -lossless -d 100 "$tmp/frame1.png" "$tmp/frame2.png" -o "$tmp/animated.webp" >/dev/null
head -c 1000 "$tmp/exif-icc.webp" >"$tmp/truncated.webp"

# Bad files. not-heif: ftyp(major 'qt  ', minor 0x200, compatible 'qt  '), a 'wide' box, an mdat header.
printf '\000\000\000\024ftypqt  \000\000\002\000qt  \000\000\000\010wide\000\000\000\040mdat' >"$tmp/not-heif.heic"
head -c $(($(wc -c <"$tmp/gps-p3.heic") / 2)) "$tmp/gps-p3.heic" >"$tmp/truncated.heic"

for f in gps-p3 orientation-6 alpha 10bit 10bit-p3 gray; do mv "$tmp/$f.heic" "$good/"; done
mv "$tmp/not-heif.heic" "$tmp/truncated.heic" "$tmp/truncated.webp" "$bad/"
for f in exif-icc orientation-6 lossless-alpha animated; do mv "$tmp/$f.webp" "$webp/"; done

# GIF: every record chosen by hand (Python's standard library only).
mkdir -p Tests/Fixtures/gif
python3 scripts/make-gif-fixtures.py Tests/Fixtures/gif

# JPEG XL (cjxl): its own script, which can also run alone.
scripts/make-jxl-fixtures.sh

# The demo's phone-sized HEIC: its own script too.
scripts/make-demo-fixture.sh

# Graphics (screenshot, chart, icon, pixel art, one colour, 2x2), drawn with ImageMagick: its own script too.
scripts/make-graphics-fixtures.sh

# Report, and refuse fixtures too big to commit.
for f in "$webp"/*.webp "$bad"/truncated.webp; do
  size=$(wc -c <"$f")
  ((size < 30000)) || { echo "make-fixtures: $f is $size bytes, over 30000" >&2; exit 1; }
  printf '%-40s %6d bytes  %s\n' "$f" "$size" "$(webpinfo -quiet "$f" >/dev/null 2>&1 && echo ok || echo 'not valid (as intended for bad/)')"
done
for f in "$good"/{gps-p3,orientation-6,alpha,10bit,10bit-p3,gray}.heic "$bad"/{not-heif,truncated}.heic; do
  size=$(wc -c <"$f")
  ((size < 30000)) || { echo "make-fixtures: $f is $size bytes, over 30000" >&2; exit 1; }
  info=$(heif-info "$f" 2>&1 | grep -E '^image:|color profile|alpha channel|Exif|XMP' | tr -s ' \n' ' ') || info='(heif-info: not readable)'
  printf '%-40s %6d bytes  %s\n' "$f" "$size" "$info"
done
