#!/usr/bin/env bash
# Draws the graphics fixtures (Tests/Fixtures/graphics/) with ImageMagick: pictures that are not photos,
# each written as a plain RGB or RGBA PNG (PNG24:/PNG32:, zlib's default), as a screenshot tool or an
# export would, so a lossless rewrite has something to find. `make fixtures` runs it.
#   screenshot.png  320x200 app window: title bar, side panel, text rows, a button (few colours, text edges).
#   chart.png       240x160 bar chart on white with axes, grid lines and labels.
#   icon-alpha.png  64x64 RGBA: an antialiased disc and a ring on transparency (many alpha levels).
#   pixel-art.png   64x64 sprite: a 16x16 drawing of 5 colours, each pixel a 4x4 block, with a transparent background.
#   one-colour.png  48x48 of a single grey-blue.
#   2x2.png         2x2: red, green, blue, white.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v convert >/dev/null || { echo "make-graphics-fixtures: convert not found (run: make deps)" >&2; exit 1; }
out=Tests/Fixtures/graphics
mkdir -p "$out"
# No dates or software names in the files: the same script makes the same bytes.
strip=(-define png:exclude-chunks=date,time -strip)

text=()
for row in 0 1 2 3 4 5 6 7; do
  y=$((50 + row * 16))
  text+=(-fill '#222222' -draw "text 100,$y 'Row $row: settings value $((row * 37 % 100))'")
done
convert -size 320x200 xc:'#f4f5f7' \
  -fill '#2d3e50' -draw 'rectangle 0,0 319,24' -fill white -font DejaVu-Sans -pointsize 12 -draw "text 8,17 'imgprep - Settings'" \
  -fill '#e1e4e8' -draw 'rectangle 0,25 89,199' -fill '#333333' -pointsize 11 \
  -draw "text 8,45 'General'" -draw "text 8,63 'Output'" -draw "text 8,81 'Formats'" \
  -pointsize 11 "${text[@]}" \
  -fill '#0a66c2' -draw 'roundrectangle 230,170 310,192 4,4' -fill white -draw "text 252,185 'Save'" \
  "${strip[@]}" PNG24:"$out/screenshot.png"

convert -size 240x160 xc:white -stroke '#dddddd' \
  -draw 'line 30,20 230,20' -draw 'line 30,60 230,60' -draw 'line 30,100 230,100' \
  -stroke black -draw 'line 30,10 30,140' -draw 'line 30,140 230,140' -stroke none \
  -fill '#4e79a7' -draw 'rectangle 45,60 70,139' -fill '#f28e2b' -draw 'rectangle 90,30 115,139' \
  -fill '#e15759' -draw 'rectangle 135,90 160,139' -fill '#76b7b2' -draw 'rectangle 180,45 205,139' \
  -fill black -font DejaVu-Sans -pointsize 10 \
  -draw "text 48,154 'Q1'" -draw "text 93,154 'Q2'" -draw "text 138,154 'Q3'" -draw "text 183,154 'Q4'" \
  -draw "text 4,24 '300'" -draw "text 4,64 '200'" -draw "text 4,104 '100'" \
  "${strip[@]}" PNG24:"$out/chart.png"

convert -size 64x64 xc:none -fill '#3b82f6' -draw 'circle 32,32 32,6' \
  -fill none -stroke '#fbbf24' -strokewidth 4 -draw 'circle 32,32 32,14' \
  "${strip[@]}" PNG32:"$out/icon-alpha.png"

# The sprite, one character per pixel: . transparent, k black, r red, y yellow, w white.
sprite=(
  "......kkkk......" ".....krrrrk....." "....krrrrrrk...." "...krrwwrrrrk..." "...krwwrrrrrk..."
  "..krrrrrrrrrrk.." "..krrrrrrrrrrk.." "..kkkkkkkkkkkk.." "...kyyyyyyyyk..." "...kykkyykkyk..."
  "...kyyyyyyyyk..." "...kyykkkkyyk..." "....kyyyyyyk...." ".....kkkkkk....." "......k..k......" ".....kk..kk.....")
{
  echo "P7"; echo "WIDTH 16"; echo "HEIGHT 16"; echo "DEPTH 4"; echo "MAXVAL 255"; echo "TUPLTYPE RGB_ALPHA"; echo "ENDHDR"
} >"$out/.sprite.pam"
for line in "${sprite[@]}"; do
  for ((i = 0; i < 16; i++)); do
    case "${line:i:1}" in
      .) printf '\x00\x00\x00\x00' ;; k) printf '\x10\x10\x18\xff' ;; r) printf '\xd0\x30\x30\xff' ;;
      y) printf '\xf0\xc8\x40\xff' ;; w) printf '\xff\xff\xff\xff' ;;
    esac
  done
done >>"$out/.sprite.pam"
convert "$out/.sprite.pam" -filter point -resize 400% "${strip[@]}" PNG32:"$out/pixel-art.png"
rm -f "$out/.sprite.pam"

convert -size 48x48 xc:'#5a7d9a' "${strip[@]}" PNG24:"$out/one-colour.png"

printf 'P6\n2 2\n255\n\xff\x00\x00\x00\xff\x00\x00\x00\xff\xff\xff\xff' | convert ppm:- "${strip[@]}" PNG24:"$out/2x2.png"
ls -l "$out"
