# The graphics workload of scripts/bench.sh (sourced by it; uses its measure, table, headline, aim, emit):
# screenshots, diagrams, icons with alpha, logos and pixel art that Debian packages install
# (scripts/bench-graphics.tsv lists them with their packages and licences). Lossless PNG against optipng -o2,
# oxipng -o2 (PyPI pyoxipng), zopflipng and cwebp -lossless -exact (RGB kept under transparent pixels, so pixel-exact); palette PNG (--quality auto, SSIMULACRA 2 ≥ 80)
# against pngquant --quality 65-80; --to auto --quality auto; and the smallest lossless file of all the tools per picture, as ImageOptim
# keeps. Bytes are what a pipeline would ship: a tool that wrote nothing for a picture (pngquant when it
# cannot reach its quality) counts the input. Scores: `imgprep compare` (SSIMULACRA 2), or the reference
# ssimulacra2 when SSIMULACRA2 is set.

GRAPHICS_LIST=$REPO/scripts/bench-graphics.tsv

graphics_workload() {
  local O=$TMP/outgr kind package path licence missing=() l
  INPUTS=()
  while IFS=$'\t' read -r kind package path licence; do
    [[ -z $kind || $kind == \#* ]] && continue
    if [[ -f $path ]]; then INPUTS+=("$path"); else missing+=("$package:$path"); fi
  done <"$GRAPHICS_LIST"
  echo "== graphics: ${#INPUTS[@]} PNGs from Debian packages" >&2
  emit ""
  emit "### Graphics: lossless and palette PNG (${#INPUTS[@]} pictures from Debian packages, scripts/bench-graphics.tsv)"
  if ((${#missing[@]} > 0)); then emit ""; emit "- not installed, left out: ${missing[*]} (make bench-deps installs them)"; fi
  ((${#INPUTS[@]} > 0)) || return
  local oxipng=$REPO/.venv-test/bin/python
  "$oxipng" -c 'import oxipng' 2>/dev/null || "$REPO/.venv-test/bin/pip" install -q "pyoxipng==$PYOXIPNG_VERSION" >&2 || oxipng=
  local ours=(imgprep "$O/imgprep" "$IMGPREP" convert "${INPUTS[@]}" --to png -o "$O/imgprep" -j 2 --quiet)
  local optipng=("optipng -o2" "$O/optipng" "${X2[@]}" 'optipng -quiet -o2 -out "$OUT/$(basename "$1")" "$1"')
  local oxi=("oxipng -o2" "$O/oxipng" "${X2[@]}" "$oxipng -c 'import oxipng, sys; oxipng.optimize(sys.argv[1], sys.argv[2], level=2)' \"\$1\" \"\$OUT/\$(basename \"\$1\")\"")
  local zopfli=(zopflipng "$O/zopflipng" "${X2[@]}" 'zopflipng -y "$1" "$OUT/$(basename "$1")" >/dev/null')
  local webp=("cwebp -lossless -exact" "$O/cwebp" "${X2[@]}" 'cwebp -quiet -lossless -exact "$1" -o "$OUT/$(basename "${1%.*}").webp"')
  local palette=("imgprep --quality auto" "$O/imgprep-palette" "$IMGPREP" convert "${INPUTS[@]}" --to png --quality auto -o "$O/imgprep-palette" -j 2 --quiet)
  local pngquant=("pngquant --quality 65-80" "$O/pngquant" "${X2[@]}" 'pngquant --quality 65-80 --output "$OUT/$(basename "$1")" "$1"')
  local auto=("imgprep --to auto --quality auto" "$O/imgprep-auto" "$IMGPREP" convert "${INPUTS[@]}" --to auto --quality auto -o "$O/imgprep-auto" -j 2 --quiet)
  local specs=(ours optipng zopfli webp palette pngquant auto) labels=(imgprep "optipng -o2" zopflipng "cwebp -lossless -exact" "imgprep --quality auto" "pngquant --quality 65-80" "imgprep --to auto --quality auto")
  [[ -n $oxipng ]] && specs+=(oxi) && labels+=("oxipng -o2")
  measure "${specs[@]}"
  table "Graphics: time (${#INPUTS[@]} PNGs; lossless rows, then palette rows, then --to auto)" imgprep "${labels[@]}"
  headline "Graphics (lossless PNG)" "optipng -o2" "oxipng -o2" zopflipng "cwebp -lossless -exact"

  # Bytes and scores of each tool's last timed run (the memory run wrote the same files again).
  local rows=() dir
  for l in "imgprep:imgprep" "optipng -o2:optipng" "oxipng -o2:oxipng" "zopflipng:zopflipng" "cwebp -lossless -exact:cwebp" \
           "imgprep --quality auto:imgprep-palette" "pngquant --quality 65-80:pngquant" "imgprep --to auto --quality auto:imgprep-auto"; do
    [[ -d $O/${l##*:} ]] && rows+=("${l%%:*}" "$O/${l##*:}")
  done
  local lossless=("imgprep" "optipng -o2" "oxipng -o2" "zopflipng" "cwebp -lossless -exact")
  emit ""
  emit "| tool | bytes | of the inputs | pictures written | lowest SSIMULACRA 2 | mean SSIMULACRA 2 |"
  emit "|---|---:|---:|---:|---:|---:|"
  local in_total=0 f
  for f in "${INPUTS[@]}"; do in_total=$((in_total + $(stat -c%s "$f"))); done
  emit "| the inputs | $(commas "$in_total") | 1.00 | - | - | - |"
  declare -A bytes_of
  local i label written total scores=() s min mean smallest=0 stem out best
  for ((i = 0; i < ${#rows[@]}; i += 2)); do
    label=${rows[i]} dir=${rows[i + 1]} written=0 total=0 scores=()
    for f in "${INPUTS[@]}"; do
      stem=$(basename "${f%.*}")
      out=$(find "$dir" -maxdepth 1 -type f -size +0 -name "$stem.*" | head -1)
      if [[ -n $out ]]; then
        written=$((written + 1)); total=$((total + $(stat -c%s "$out")))
        bytes_of["$label|$stem"]=$(stat -c%s "$out")
        s=$(graphics_score "$f" "$out") && scores+=("$s")
      else
        total=$((total + $(stat -c%s "$f")))
      fi
    done
    min=$(printf '%s\n' "${scores[@]}" | sort -g | head -1); mean=$(printf '%s\n' "${scores[@]}" | awk '{s += $1} END {if (NR) printf "%.1f", s / NR}')
    emit "| $label | $(commas "$total") | $(ratio "$total" "$in_total") | $written/${#INPUTS[@]} | ${min:--} | ${mean:--} |"
    GRAPHICS_BYTES[$label]=$total
  done
  # ImageOptim's way: every lossless tool run and the smallest file kept, per picture.
  for f in "${INPUTS[@]}"; do
    stem=$(basename "${f%.*}") best=$(stat -c%s "$f")
    for label in "${lossless[@]}"; do
      [[ -n ${bytes_of["$label|$stem"]:-} ]] && ((bytes_of["$label|$stem"] < best)) && best=${bytes_of["$label|$stem"]}
    done
    smallest=$((smallest + best))
  done
  emit "| smallest lossless of all (per picture) | $(commas "$smallest") | $(ratio "$smallest" "$in_total") | - | 100 | 100 |"
  emit ""
  emit "- scores: $([[ -n ${SSIMULACRA2:-} && -x ${SSIMULACRA2:-} ]] && echo "the reference ssimulacra2 ($SSIMULACRA2)" || echo "imgprep compare (SSIMULACRA 2, within 0.5 of the reference on the recorded pairs)") of each output against its input; lossless outputs score 100"
  aim "graphics: imgprep's lossless PNG bytes over optipng -o2's" "$(ratio "${GRAPHICS_BYTES[imgprep]:-0}" "${GRAPHICS_BYTES[optipng -o2]:-0}")" 1 at-most
  aim "graphics: imgprep's lossless PNG time over optipng -o2's" "$(ratio "${R_TIME[imgprep]:-0}" "${R_TIME[optipng -o2]:-0}")" 1 at-most
  aim "graphics: palette PNG bytes (--quality auto, SSIMULACRA 2 ≥ 80) over pngquant --quality 65-80's" \
      "$(ratio "${GRAPHICS_BYTES[imgprep --quality auto]:-0}" "${GRAPHICS_BYTES[pngquant --quality 65-80]:-0}")" 1 at-most
  aim "graphics: --to auto --quality auto bytes (SSIMULACRA 2 ≥ 80) over the smallest lossless file of all tools" \
      "$(ratio "${GRAPHICS_BYTES[imgprep --to auto --quality auto]:-0}" "$smallest")" 1 at-most
  aim "graphics: --to auto --quality auto time over cwebp -lossless -exact's" \
      "$(ratio "${R_TIME[imgprep --to auto --quality auto]:-0}" "${R_TIME[cwebp -lossless -exact]:-0}")" 3 at-most
  HEADLINES+=("- Graphics bytes: imgprep lossless $(ratio "${GRAPHICS_BYTES[imgprep]:-0}" "$in_total") of the inputs (optipng -o2 $(ratio "${GRAPHICS_BYTES[optipng -o2]:-0}" "$in_total"), smallest lossless of all tools $(ratio "$smallest" "$in_total")); palette $(ratio "${GRAPHICS_BYTES[imgprep --quality auto]:-0}" "$in_total") (pngquant $(ratio "${GRAPHICS_BYTES[pngquant --quality 65-80]:-0}" "$in_total"))")
}
declare -A GRAPHICS_BYTES
PYOXIPNG_VERSION=9.1.1

# graphics_score ORIGINAL OUTPUT : SSIMULACRA 2 of OUTPUT against ORIGINAL.
graphics_score() {
  if [[ -n ${SSIMULACRA2:-} && -x ${SSIMULACRA2:-} ]]; then
    local png=$TMP/graphics-score.png
    "$CONVERT" "$2" "PNG32:$png" 2>/dev/null && "$SSIMULACRA2" "$1" "$png" 2>/dev/null | tail -1
  else
    "$IMGPREP" compare "$1" "$2" 2>/dev/null | head -1
  fi
}
