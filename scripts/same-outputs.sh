#!/usr/bin/env bash
# Requires two builds of imgprep to write the same bytes: every output format, a web set with its
# manifest, --to auto, --quality auto, byte budgets, colour conversion and `info`, over the real photos
# of ../shared/corpus (or $IMGPREP_CORPUS) and the fixtures. Run it around a change that must not change
# outputs (a refactor), against the commit before it:
#
#   git worktree add /tmp/before HEAD~1 && make -C /tmp/before build
#   make build && scripts/same-outputs.sh /tmp/before/.build/static/release/imgprep .build/static/release/imgprep
#
# Compares the output trees byte for byte and the --json lines (the timing fields "ms" and "seconds"
# left out); prints each difference and exits 1 if there is any. SAME_OUTPUTS_KEEP=1 keeps the work
# folder. About 10 minutes per build on two cores.
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 OLD_IMGPREP NEW_IMGPREP" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
for bin in "$old" "$new"; do [[ -x $bin ]] || { echo "$0: $bin is not an executable" >&2; exit 2; }; done
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${IMGPREP_CORPUS:-$root/../shared/corpus}
[[ -d $corpus ]] || { echo "$0: no corpus at $corpus (set IMGPREP_CORPUS)" >&2; exit 2; }
corpus=$(realpath "$corpus")
command -v jq >/dev/null || { echo "$0: needs jq (make deps)" >&2; exit 2; }
work=$(mktemp -d)
[[ ${SAME_OUTPUTS_KEEP:-} == 1 ]] && echo "work folder: $work" || trap 'rm -rf "$work"' EXIT

# Photos and graphics of every input format; the broken files too, whose error lines must agree.
mapfile -t inputs < <(find "$corpus/heic" "$corpus/jpeg" "$corpus/avif" "$corpus/broken" "$root/Tests/Fixtures" \
  -type f \( -iname '*.heic' -o -iname '*.heif' -o -iname '*.hif' -o -iname '*.avif' -o -iname '*.avifs' -o -iname '*.jpg' \
  -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.webp' -o -iname '*.gif' -o -iname '*.jxl' \) -not -path '*/fuzz/*' | sort)
# (The set names carry {hash}: the broken corpus holds two files of one stem.)
# The expensive modes run on the photos of the corpus only, at a smaller size.
mapfile -t photos < <(find "$corpus/heic" "$corpus/jpeg" -type f -size +100k | sort)

# name|command and options (the inputs follow)
runs=(
  "jpeg|convert --to jpeg"
  "jpeg-2048-nogps|convert --to jpeg --max-dimension 2048 --strip-location"
  "png|convert --to png --max-dimension 1024"
  "webp|convert --to webp --max-dimension 1024"
  "webp-lossless|convert --to webp --lossless --max-dimension 512"
  "jxl|convert --to jxl --max-dimension 1024"
  "avif|convert --to avif --max-dimension 1024"
  "heic|convert --to heic --max-dimension 1024"
  "srgb|convert --to jpeg --color srgb --max-dimension 1024"
  "budget-jpeg|compress --max-bytes 150KB"
  "budget-webp|compress --to webp --max-bytes 60KB --max-dimension 1536"
  "budget-avif|compress --to avif --max-bytes 40KB --max-dimension 1024"
  "set|convert --to avif,webp,jpeg --widths 320,640,1280 --name {name}-{width}-{hash}.{ext} --manifest MANIFEST"
)
photo_runs=(
  "quality-auto-jpeg|convert --to jpeg --quality auto --max-dimension 1024"
  "quality-auto-webp|convert --to webp --quality auto --max-dimension 768"
  "to-auto|convert --to auto --quality auto --max-dimension 512"
  "to-auto-budget|convert --to auto --max-bytes 80KB --max-dimension 1024"
)

# Runs one mode with one build, in a folder of its own, so the relative output paths in --json agree.
run() {  # build-label binary name options inputs...
  local label=$1 bin=$2 name=$3 options=$4; shift 4
  local dir=$work/$label/$name
  mkdir -p "$dir"
  options=${options//MANIFEST/out/images.json}
  # shellcheck disable=SC2086 # options are words
  (cd "$dir" && "$bin" $options -j 2 -o out --json "$@" >json.raw 2>stderr.txt; echo $? >status)
  jq -cS 'del(.ms, .summary.seconds)' "$dir/json.raw" | sort >"$dir/json.txt"
  if [[ $name == jpeg ]]; then (cd "$dir" && "$bin" info --json "$@" 2>/dev/null | jq -cS 'del(.ms)' | sort >info.txt); fi
}

status=0
compare() {  # name
  local name=$1 a=$work/old/$1 b=$work/new/$1
  if ! cmp -s "$a/status" "$b/status"; then echo "DIFFERENT exit status in $name: $(cat "$a/status") vs $(cat "$b/status")"; status=1; fi
  if ! diff -q "$a/json.txt" "$b/json.txt" >/dev/null; then
    echo "DIFFERENT --json lines in $name:"; diff "$a/json.txt" "$b/json.txt" | head -20; status=1
  fi
  if ! diff -rq "$a/out" "$b/out" >"$work/diff-$name.txt" 2>&1; then
    echo "DIFFERENT outputs in $name:"; head -20 "$work/diff-$name.txt"; status=1
  fi
  local files; files=$(find "$a/out" -type f 2>/dev/null | wc -l)
  echo "$name: $files files compared"
}

for spec in "${runs[@]}" "${photo_runs[@]}"; do
  name=${spec%%|*} options=${spec#*|}
  list=("${inputs[@]}")
  [[ " ${photo_runs[*]} " == *" $spec "* ]] && list=("${photos[@]}")
  for label in old new; do
    bin=$old; [[ $label == new ]] && bin=$new
    run "$label" "$bin" "$name" "$options" "${list[@]}"
  done
  compare "$name"
done
# info once: the same lines for every input.
if ! diff -q "$work/old/jpeg/info.txt" "$work/new/jpeg/info.txt" >/dev/null; then
  echo "DIFFERENT info --json lines:"; diff "$work/old/jpeg/info.txt" "$work/new/jpeg/info.txt" | head -20; status=1
fi
echo "info: $(wc -l <"$work/new/jpeg/info.txt") lines compared"
[[ $status == 0 ]] && echo "same outputs: every file and --json line agrees" || echo "same outputs: FAILED"
exit $status
