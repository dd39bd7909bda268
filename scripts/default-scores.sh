#!/usr/bin/env bash
# The SSIMULACRA 2 score each lossy format's default quality reaches on the corpus's device photos at a
# 2048-pixel long edge, against the same picture written losslessly (PNG), scored by `imgprep compare`.
# Prints one row per format: the default quality, then the median, lowest and highest score and the
# median bytes. docs/formats.md shows its output.
#   scripts/default-scores.sh IMGPREP HEIC...
set -euo pipefail
imgprep=$1; shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$imgprep" convert "$@" --to png --max-dimension 2048 -o "$work/ref" --quiet
printf 'format\tdefault quality\tmedian score\tlowest\thighest\tmedian bytes\n'
for format in jpeg webp avif heic jxl; do
  "$imgprep" convert "$@" --to "$format" --max-dimension 2048 -o "$work/$format" --json >"$work/$format.json"
  quality=$(jq -rs '[.[] | select(.status == "ok") | .quality] | first' "$work/$format.json")
  for out in "$work/$format"/*; do
    stem=$(basename "${out%.*}")
    printf '%s\t%s\n' "$("$imgprep" compare "$work/ref/$stem.png" "$out")" "$(stat -c %s "$out")"
  done >"$work/$format.tsv"
  scores=($(cut -f1 "$work/$format.tsv" | sort -n)); sizes=($(cut -f2 "$work/$format.tsv" | sort -n))
  middle=$(( (${#scores[@]} - 1) / 2 ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$format" "$quality" "${scores[$middle]}" "${scores[0]}" "${scores[-1]}" "${sizes[$middle]}"
done
