#!/usr/bin/env bash
# Benchmark imgprep against the usual command-line rivals on the shared corpus, and write the whole
# result page (machine, versions, date, command lines, every table) to docs/benchmark.md: nothing on
# that page is edited by hand.
#
#   make bench                                 # installs the tools, builds, runs this
#   bash scripts/bench.sh                      # uses .build/static/release/imgprep (make build), ../shared/corpus
#   IMGPREP=/path/imgprep CORPUS=/path BENCH_RUNS=5 bash scripts/bench.sh
#
# Env:
#   IMGPREP      imgprep binary (default .build/static/release/imgprep, relative to the repo)
#   CORPUS       corpus root (default ../shared/corpus, relative to the repo); read only, never copied
#   BENCH_RUNS   timed runs per tool and workload; the table shows the median (default 3)
#   BENCH_TABLE  where to write the page (default docs/benchmark.md; empty = don't write)
#   BENCH_WORKLOADS  which workloads to run (default "1 2 3 single 4 5 6 7 8 9 10 11 12 metric set hdr gif cache stream urls"; W3's ratios need W1)
#   SSIMULACRA2  the reference ssimulacra2 binary, if built (W12 and the metric rows then show its time and agreement)
#   SSIMULACRA2_SRC  a cloudinary/ssimulacra2 checkout to build that binary from (scripts/build-ssimulacra2.sh)
#   BENCH_200MP  1 = also time the 200 MP Samsung HEIC as its own row set (W1b); off by default
#                because one file takes ~7 s per tool per run and ImageMagick's policy refuses it
#   CONVERT      ImageMagick 6 convert (default /usr/bin/convert: the real binary, not a wrapper)
#   BENCH_QUIET_WAIT  seconds to wait, before each timed run, for the machine to go quiet (other
#                processes using < 15% of the CPUs over 1 s); 0 = don't wait (default 120)
#
# Every tool processes 2 files at a time: imgprep with -j 2, the rivals through `xargs -P 2` (one
# process per file, as people run them). Wall time is measured around the whole batch; peak RSS is
# `/usr/bin/time -v` around the whole batch, which for xargs reports the largest single child, and
# for imgprep its one process (both files in flight) - so the RSS column favours the rivals.
#
# Failures are counted from the timed runs themselves: after each timed run, the inputs without an
# output are counted (the table shows the most any run had), and every non-zero exit is recorded: the
# imgprep process's own, and each rival process's per file ("exit 1 on 3 files", "SIGSEGV on 1 file").
#
# Exit status: non-zero only for real errors (missing corpus, imgprep missing or failing a file).
# A rival failing on a file is shown in its row and does not stop the run.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
IMGPREP=${IMGPREP:-.build/static/release/imgprep}
CORPUS=${CORPUS:-../shared/corpus}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_TABLE=${BENCH_TABLE-docs/benchmark.md}
BENCH_200MP=${BENCH_200MP:-0}
BENCH_WORKLOADS=${BENCH_WORKLOADS:-1 2 3 single 4 5 6 7 8 9 10 11 12 metric set hdr gif graphics cache stream urls}
BENCH_QUIET_WAIT=${BENCH_QUIET_WAIT:-120}
if [[ -z ${CONVERT:-} ]]; then
  if [[ -x /usr/bin/convert ]]; then CONVERT=/usr/bin/convert; else CONVERT=convert; fi
fi
BUDGET=1000000                      # the one byte budget all W4 tools aim at
JPEGOPTIM_KB=$((BUDGET / 1024))     # jpegoptim -S counts kilobytes of 1024: 976 KiB = 999,424 B <= budget
WEBP_BUDGET=500000                  # W7: imgprep and cwebp -size aim at the same byte count
AOM_SPEED=6                         # W8: imgprep's libaom speed; vips heifsave's effort is 9 - speed
AVIF_BUDGET=150000                  # W9: the AVIF byte budget
JXL_QUALITY=86                      # W10: imgprep's JPEG XL default quality
JXL_EFFORT=5                        # W10: and its libjxl effort
# W11: the corpus JPEGs that are photos, upright and without a gain map: what recompresses as it is
# (recurser__Landscape_0.jpg says Orientation 0, which is no orientation: imgprep writes 1, so re-encodes it).
RECOMPRESS_JPEGS=(immich__empty_gps.jpg immich__thompson-springs.jpg libvips__sample.jpg ljt__testorig.jpg nuke__image-p3.jpg
  pillow__icc_profile_big.jpg pillow__xmp_test.jpg recurser__Landscape_1.jpg)
export CONVERT                      # used inside the xargs sh -c snippets

die() { echo "bench: $*" >&2; exit 1; }
commas() { printf '%s' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }   # 1000000 -> 1,000,000
have() { command -v "$1" >/dev/null 2>&1; }

[[ -d $CORPUS/heic && -d $CORPUS/jpeg ]] || die "corpus not found at $CORPUS (set CORPUS)"
[[ -x $IMGPREP ]] || die "imgprep binary not found at $IMGPREP (run 'swift build -c release' or set IMGPREP)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (apt-get install time)"
IMGPREP=$(cd "$(dirname "$IMGPREP")" && pwd)/$(basename "$IMGPREP")
CORPUS=$(cd "$CORPUS" && pwd)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/imgprep-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
TABLE_TMP=$TMP/table.md      # the results, in the order measured
HEAD_TMP=$TMP/head.md        # machine, versions, method: written before the first run
: >"$TABLE_TMP"; : >"$HEAD_TMP"
HEADLINES=()                 # one line per workload, for the top of the page

# The 11 real device photos libheif 1.15 decodes (NOTES.md's rival baseline set). Excluded: the 200 MP
# Samsung grid (own opt-in row, BENCH_200MP=1), the iPhone 15 Pro gain-map file libheif 1.15 rejects,
# and the small synthetic/edge-case files (<= 1440 px, no camera).
DEVICE_HEICS=(
  immich__IMG_2682.heic immich__samsung-one-ui-6.heic libvips__Example1.heic
  libvips__heic-orientation-6.heic libvips__oneplus-heic.heic nuke__img_751.heic
  pillow_heif__aux_YCbCr.heic pillow_heif__cat.hif pillow_heif__pug.heic
  pillow_heif__spatial_photo.heic pillow_heif__xiaomi.heic
)
HEICS=()
for f in "${DEVICE_HEICS[@]}"; do
  [[ -f $CORPUS/heic/$f ]] || die "missing corpus file heic/$f"
  HEICS+=("$CORPUS/heic/$f")
done

# ---------------------------------------------------------------------------------------------------
# Measurement helpers

emit() { printf '%s\n' "$*" | tee -a "$TABLE_TMP"; }

# cpu_busy : percent of all CPUs busy over the next second (from /proc/stat; our own tools are idle
# between runs, so this is what the machine's other users take).
cpu_busy() {
  local a b
  a=$(awk '/^cpu / {print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat); sleep 1
  b=$(awk '/^cpu / {print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat)
  echo "$a $b" | awk '{d = $4 - $2; busy = d > 0 ? 100 * ($3 - $1) / d : 0; printf "%d", busy}'
}

# wait_quiet : the machine is shared with other builds; wait (up to BENCH_QUIET_WAIT s) until they
# leave the CPUs alone, so wall times measure the tools and not the neighbours. Records the worst
# busy level seen at the start of a run in MAX_BUSY (printed with the tables).
MAX_BUSY=0
wait_quiet() {
  local busy waited=0
  busy=$(cpu_busy)
  while ((busy >= 15 && waited < BENCH_QUIET_WAIT)); do
    sleep 4; waited=$((waited + 5)); busy=$(cpu_busy)
  done
  ((busy > MAX_BUSY)) && MAX_BUSY=$busy
  ((busy >= 15)) && echo "  (machine still ${busy}% busy after ${waited}s: timing anyway)" >&2
  return 0
}

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# count_outputs OUTDIR INPUT... : how many inputs have at least one non-empty output whose name starts
# with the input's stem (heif-convert writes stem-1.jpg, stem-2.jpg for files with two images).
count_outputs() {
  local out=$1 n=0 f stem; shift
  for f in "$@"; do
    stem=$(basename "${f%.*}")
    if find "$out" -maxdepth 1 -type f -size +0 \( -name "$stem.*" -o -name "$stem-*" \) | grep -q .; then
      n=$((n + 1))
    fi
  done
  echo "$n"
}

# Per-file exits of the rivals: X2 runs every file through this wrapper (`sh -c WRAP bench-one SNIPPET
# FILE`), which runs SNIPPET on FILE and, when it fails, appends "status<TAB>FILE" to $BENCH_EXITS (a
# short O_APPEND write, so the two parallel processes never mix lines) and exits 1, so that xargs goes
# on whatever the status was (it would stop at 255). This costs one more `sh` (about 1 ms) per file.
WRAP='sh -c "$1" _ "$2"; rc=$?; [ "$rc" -eq 0 ] || { printf "%s\t%s\n" "$rc" "$2" >>"$BENCH_EXITS"; exit 1; }'

# "${X2[@]}" 'SNIPPET' : runs `sh -c SNIPPET _ FILE` for every file of INPUTS (listed by measure in
# $TMP/inputs.lst), two at a time; SNIPPET writes into "$OUT". A failing file never stops the others.
X2=(xargs -0 -a "$TMP/inputs.lst" -n 1 -P 2 sh -c "$WRAP" bench-one)

# exit_words FILE : the statuses listed in FILE ("status<TAB>file" lines) in words, e.g.
# "exit 1 on 3 files, SIGSEGV on 1 file"; "none" for an empty file.
exit_words() {
  [[ -s $1 ]] || { echo none; return; }
  cut -f1 "$1" | sort -n | uniq -c | while read -r n rc; do
    local what="exit $rc"
    ((rc > 128)) && what="SIG$(kill -l $((rc - 128)) 2>/dev/null || echo "$((rc - 128))")"
    printf '%s on %d file%s\n' "$what" "$n" "$([[ $n == 1 ]] || echo s)"
  done | paste -sd, - | sed 's/,/, /g'
}

# show_command CMD... : CMD as a reader can run it: the inputs as FILE..., temporary paths under
# /tmp/bench, a rival's per-file snippet as it runs on each FILE.
show_command() {
  local a out=() skip=0 inputs=" ${INPUTS[*]} "
  if [[ $1 == xargs ]]; then
    while [[ $# -gt 0 && $1 != bench-one ]]; do shift; done
    # The snippet with the variables it reads filled in, as one would type it.
    local snippet=$2
    snippet=${snippet//'"$CONVERT"'/$CONVERT}; snippet=${snippet//'${EDGE}'/${EDGE:-}}
    snippet=${snippet//'$AVIF_EFFORT'/${AVIF_EFFORT:-}}; snippet=${snippet//'$OUT'/OUT}
    snippet=${snippet//'$JXL_DISTANCE'/${JXL_DISTANCE:-}}; snippet=${snippet//'$JXL_EFFORT'/${JXL_EFFORT:-}}
    if [[ $snippet == *"'"* ]]; then snippet=$(printf '%q' "$snippet"); else snippet="'$snippet'"; fi
    printf 'for each FILE, 2 at a time (xargs -P 2): sh -c %s _ FILE\n' "$snippet" | sed "s|$TMP|/tmp/bench|g"
    return
  fi
  for a in "$@"; do
    if [[ $inputs == *" $a "* ]]; then ((skip++ == 0)) && out+=("FILE..."); continue; fi
    [[ $a == "$IMGPREP" ]] && a=imgprep
    out+=("$a")
  done
  printf '%s ' "${out[@]}" | sed -e "s|$TMP|/tmp/bench|g" -e 's/ $//'
}

# Every workload measures its tools with measure_interleaved: each tool is an array (a "spec") holding
# LABEL OUTDIR CMD...; OUTDIR is emptied before each run, and CMD sees the inputs in the global array
# INPUTS. For each LABEL it stores the median wall seconds in R_TIME[LABEL], the median CPU seconds in
# R_CPU, the peak RSS (MB) in R_RSS and, from the timed runs themselves, the most inputs any run left
# without an output in R_FAIL ("1-2" when runs differ) and the non-zero exits of the worst run in R_EXIT.
declare -A R_TIME R_CPU R_USER R_SYS R_RSS R_FAIL R_EXIT R_CMD
declare -A RUN_TIMES RUN_CPUS RUN_USERS RUN_SYSS RUN_FAILS RUN_WORST RUN_EXITS   # the timed runs so far, per label
IMGPREP_FAILS=0   # every input here is valid: imgprep failing one is a real error (exit 1 at the end)

# measure_interleaved RUNS SPEC... : RUNS timed runs of every tool, taken in turn (one run of each tool,
# then the next round), so a shared machine's busy moments and drift fall on all of them alike; a tool
# measured in a block of its own runs once met a neighbour's busy minute that its rival never saw.
measure_interleaved() {
  local runs=$1 run spec; shift
  for spec; do local -n tool_spec=$spec; start_measure "${tool_spec[0]}" "${tool_spec[@]:2}"; unset -n tool_spec; done
  for ((run = 1; run <= runs; run++)); do
    for spec; do local -n tool_spec=$spec; timed_run "${tool_spec[@]}"; unset -n tool_spec; done
  done
  for spec; do local -n tool_spec=$spec; finish_measure "${tool_spec[@]}"; unset -n tool_spec; done
}

# measure SPEC... : measure_interleaved with BENCH_RUNS runs.
measure() { measure_interleaved "$BENCH_RUNS" "$@"; }

# in_process NAME SPEC : declares the array NAME as SPEC's command with IMGPREP_ISOLATION=off (all files
# in one process, the same threads per picture and the same memory gate), labelled IN_PROCESS.
in_process() {
  local -n alone_spec=$1 ours_spec=$2
  alone_spec=("$IN_PROCESS" "${ours_spec[1]}" env IMGPREP_ISOLATION=off "${ours_spec[@]:2}")
}

# start_measure LABEL CMD... : forgets LABEL's earlier runs and records its command line.
start_measure() {
  local label=$1; shift
  RUN_TIMES[$label]=; RUN_CPUS[$label]=; RUN_USERS[$label]=; RUN_SYSS[$label]=; RUN_FAILS[$label]=; RUN_WORST[$label]=-1; RUN_EXITS[$label]=none
  R_CMD[$label]=$(show_command "$@")
}

# timed_run LABEL OUTDIR CMD... : one timed run of CMD, added to LABEL's runs.
timed_run() {
  local label=$1 out=$2 t0 t1 rc missing; shift 2
  printf '%s\0' "${INPUTS[@]}" >"$TMP/inputs.lst"
  export OUT=$out BENCH_EXITS=$TMP/exits.tsv
  rm -rf "$out"; mkdir -p "$out"
  : >"$BENCH_EXITS"
  sync
  ((BENCH_QUIET_WAIT > 0)) && wait_quiet
  t0=$(date +%s%N)
  /usr/bin/time -v -o "$TMP/time.txt" "$@" >"$TMP/last.out" 2>"$TMP/last.err"
  rc=$?
  t1=$(date +%s%N)
  RUN_TIMES[$label]+=" $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b-a)/1e9}')"
  # CPU seconds (user + system, all threads and children): far steadier than wall time on a shared machine.
  RUN_CPUS[$label]+=" $(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$TMP/time.txt")"
  RUN_USERS[$label]+=" $(awk -F': ' '/User time/ {printf "%.2f", $2}' "$TMP/time.txt")"
  RUN_SYSS[$label]+=" $(awk -F': ' '/System time/ {printf "%.2f", $2}' "$TMP/time.txt")"
  missing=$((${#INPUTS[@]} - $(count_outputs "$out" "${INPUTS[@]}")))
  RUN_FAILS[$label]+=" $missing"
  cp "$TMP/last.out" "$TMP/stdout-${label//[^[:alnum:]]/_}.txt"   # W4 and W7 read imgprep's --json
  # This run's exits: each rival process's, per file (the wrapper's list), or imgprep's one process's.
  [[ $1 != xargs ]] && ((rc != 0)) && printf '%s\tall\n' "$rc" >"$BENCH_EXITS"
  if (($(wc -l <"$BENCH_EXITS") > RUN_WORST[$label])); then
    RUN_WORST[$label]=$(wc -l <"$BENCH_EXITS"); RUN_EXITS[$label]=$(exit_words "$BENCH_EXITS")
    [[ $1 != xargs ]] && RUN_EXITS[$label]=${RUN_EXITS[$label]% on 1 file}
  fi
  if ((rc != 0)); then
    echo "  ($label: exit $rc; first stderr lines:)" >&2
    head -3 "$TMP/last.err" | sed 's/^/    /' >&2
  fi
}

# finish_measure LABEL OUTDIR CMD... : the medians of LABEL's runs, and its peak memory.
finish_measure() {
  local label=$1 out=$2 maxrss lo hi; shift 2
  local times=(${RUN_TIMES[$label]}) cpus=(${RUN_CPUS[$label]}) users=(${RUN_USERS[$label]}) syss=(${RUN_SYSS[$label]}) fails=(${RUN_FAILS[$label]})
  # Peak memory of all the tool's processes together (imgprep's workers, xargs' children), from one
  # more, untimed run sampled every 5 ms: /usr/bin/time only knows the largest single process.
  rm -rf "$out"; mkdir -p "$out"; : >"$BENCH_EXITS"
  export OUT=$out   # the rivals' snippets write there; measure_interleaved's last run set another tool's
  maxrss=$(python3 "$REPO/scripts/peak-rss.py" "$@" 2>&1 >/dev/null | awk '/^peak-rss:/ {print $2}')
  R_TIME[$label]=$(printf '%s\n' "${times[@]}" | median)
  R_CPU[$label]=$(printf '%s\n' "${cpus[@]}" | median)
  R_USER[$label]=$(printf '%s\n' "${users[@]}" | median)
  R_SYS[$label]=$(printf '%s\n' "${syss[@]}" | median)
  R_RSS[$label]=$((${maxrss:-0} / 1024))
  lo=$(printf '%s\n' "${fails[@]}" | sort -n | head -1); hi=$(printf '%s\n' "${fails[@]}" | sort -n | tail -1)
  if ((lo == hi)); then R_FAIL[$label]=$hi; else R_FAIL[$label]="$lo-$hi"; fi
  R_EXIT[$label]=${RUN_EXITS[$label]}
  [[ $label == imgprep ]] && IMGPREP_FAILS=$((IMGPREP_FAILS + hi))
  echo "  $label: runs ${times[*]} s -> median ${R_TIME[$label]} s (CPU ${cpus[*]} s), peak RSS ${R_RSS[$label]} MB, failed files ${R_FAIL[$label]}, non-zero exits: ${R_EXIT[$label]}" >&2
}

# commands LABEL... : the command line of each tool measured, under the table that shows it.
commands() {
  local l
  emit ""
  emit "Command lines (FILE... = the inputs above):"
  emit ""
  emit '```'
  for l in "$@"; do [[ -n ${R_CMD[$l]:-} ]] && emit "# $l" && emit "${R_CMD[$l]}"; done
  emit '```'
}

# headline TITLE LABEL... : one line for the top of the page: imgprep's time, and each rival's as a
# multiple of it (above 1: imgprep is faster).
headline() {
  local title=$1 l parts=(); shift
  for l in "$@"; do
    [[ -n ${R_TIME[$l]:-} && $l != imgprep && $l != "$IN_PROCESS" ]] || continue
    local failed=
    [[ ${R_FAIL[$l]:-0} != 0 || ${R_EXIT[$l]:-none} != none ]] && failed=" (failed ${R_FAIL[$l]}/${#INPUTS[@]} files: ${R_EXIT[$l]})"
    parts+=("$l $(ratio "${R_TIME[$l]}" "${R_TIME[imgprep]}")x$failed")
  done
  HEADLINES+=("- $title: imgprep ${R_TIME[imgprep]} s; rivals take $(IFS=';'; echo "${parts[*]}" | sed 's/;/, /g') as long")
}

# ratio A B : A / B with 2 decimals ("-" when B is 0)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "-"}'; }

# round_ratio LABEL BASE : the median over rounds of LABEL's time over BASE's time in the same round
# (steadier than the ratio of medians when a neighbour's busy minute falls on one round); "-" when the two
# were not timed in the same rounds.
round_ratio() {
  local a=(${RUN_TIMES[$1]:-}) b=(${RUN_TIMES[$2]:-}) i
  ((${#a[@]} > 0 && ${#a[@]} == ${#b[@]})) || { echo -; return; }
  for ((i = 0; i < ${#a[@]}; i++)); do ratio "${a[i]}" "${b[i]}"; echo; done | median | awk '{printf "%.2f", $1}'
}

# AIMS: one line per aim the page checks (a ratio against its target), listed under the headline.
AIMS=()

# aim TEXT VALUE TARGET at-least|at-most : records whether VALUE meets TARGET.
aim() {
  local met
  met=$(awk -v v="$2" -v t="$3" -v how="$4" 'BEGIN {if (v == "-") print "not measured"; else if ((how == "at-least" && v >= t) || (how == "at-most" && v <= t)) print "met"; else print "not met"}')
  AIMS+=("- $1: $2 (aim: ${4/-/ } $3): $met")
}

# table HEADING BASE LABEL... : markdown table of the given labels (ratio = tool time / BASE time),
# then their command lines.
table() {
  local heading=$1 base=$2 l; shift 2
  emit ""
  emit "### $heading"
  emit ""
  emit "| tool | median s | ratio to imgprep | per-round ratio | CPU s (user+sys) | CPU ratio | peak RSS MB | failed files | non-zero exits |"
  emit "|---|---:|---:|---:|---:|---:|---:|---:|---|"
  for l in "$@"; do
    [[ -n ${R_TIME[$l]:-} ]] || continue
    emit "| $l | ${R_TIME[$l]} | $(ratio "${R_TIME[$l]}" "${R_TIME[$base]:-0}") | $(round_ratio "$l" "$base") | ${R_CPU[$l]:--} | $(ratio "${R_CPU[$l]:-0}" "${R_CPU[$base]:-0}") | ${R_RSS[$l]} | ${R_FAIL[$l]}/${#INPUTS[@]} | ${R_EXIT[$l]:--} |"
  done
  commands "$@"
}

# The same imgprep command with every file prepared in the main process (no worker processes): the
# row that shows what isolation costs.
IN_PROCESS="imgprep, no isolation (IMGPREP_ISOLATION=off)"
ISOLATION_COSTS=()

# isolation_cost WORKLOAD : records imgprep's time over the same run without isolation, in percent.
isolation_cost() {
  local wall cpu
  wall=$(awk -v a="${R_TIME[imgprep]}" -v b="${R_TIME[$IN_PROCESS]}" 'BEGIN {printf "%+.1f%%", 100 * (a / b - 1)}')
  cpu=$(awk -v a="${R_CPU[imgprep]}" -v b="${R_CPU[$IN_PROCESS]}" 'BEGIN {printf "%+.1f%%", 100 * (a / b - 1)}')
  ISOLATION_COSTS+=("${1%%:*}: $wall wall, $cpu CPU")
}

# ---------------------------------------------------------------------------------------------------
# Workloads

# W1: HEIC -> full-size JPEG q85.
w1_full_size() {
  local name=${1:-"W1: HEIC → JPEG full size q85"} O=$TMP/out
  echo "== $name (${#INPUTS[@]} files)" >&2
  local ours=(imgprep "$O" "$IMGPREP" convert "${INPUTS[@]}" --to jpeg --quality 85 -o "$O" -j 2 --quiet) alone
  in_process alone ours
  local vips=("vips copy" "$O" "${X2[@]}" 'vips copy "$1" "$OUT/$(basename "${1%.*}").jpg[Q=85]"')
  local heif=("heif-convert" "$O" "${X2[@]}" 'heif-convert --quiet -q 85 "$1" "$OUT/$(basename "${1%.*}").jpg"')
  local im=("ImageMagick convert" "$O" "${X2[@]}" '"$CONVERT" "$1" -quality 85 "$OUT/$(basename "${1%.*}").jpg"')
  measure ours alone vips heif im
  isolation_cost "$name"
  table "$name" imgprep imgprep "$IN_PROCESS" "vips copy" "heif-convert" "ImageMagick convert"
  headline "${name%%:*} (HEIC to full-size JPEG)" "vips copy" "heif-convert" "ImageMagick convert"
  [[ $name == W1:* ]] && aim "W1: vips copy's time over imgprep's" "$(ratio "${R_TIME[vips copy]}" "${R_TIME[imgprep]}")" 1.3 at-least
  W1_TIME=${R_TIME[imgprep]}
  return 0
}

# shrink_to EDGE PROGRESS TITLE : INPUTS to JPEG q85 with the long edge at most EDGE ('>' = only shrink,
# like imgprep --max-dimension). W2 runs it on the HEICs, W5 on big JPEGs.
shrink_to() {
  local O=$TMP/out
  export EDGE=$1   # read inside the xargs sh -c snippets
  echo "== $2" >&2
  local ours=(imgprep "$O" "$IMGPREP" convert "${INPUTS[@]}" --to jpeg --quality 85 --max-dimension "$EDGE" -o "$O" -j 2 --quiet) alone
  in_process alone ours
  local thumb=("vipsthumbnail" "$O" "${X2[@]}" 'vipsthumbnail "$1" -s "${EDGE}x${EDGE}>" -o "$OUT/%s.jpg[Q=85]"')
  local im=("ImageMagick convert -resize" "$O" "${X2[@]}" '"$CONVERT" "$1" -resize "${EDGE}x${EDGE}>" -quality 85 "$OUT/$(basename "${1%.*}").jpg"')
  measure ours alone thumb im
  isolation_cost "$3"
  table "$3" imgprep imgprep "$IN_PROCESS" "vipsthumbnail" "ImageMagick convert -resize"
  headline "${3%%:*} (JPEG with the long edge at most $EDGE)" "vipsthumbnail" "ImageMagick convert -resize"
  [[ $3 == W2:* ]] && aim "W2: vipsthumbnail's time over imgprep's" "$(ratio "${R_TIME[vipsthumbnail]}" "${R_TIME[imgprep]}")" 1.4 at-least
  return 0
}

# W3: the floors. Decode only (vips avg reads every pixel), and JPEG encode only (vips copy from a
# pre-decoded uncompressed .v file): W1 cannot beat decode + encode.
w3_floors() {
  local O=$TMP/out V=$TMP/decoded f
  echo "== W3: floors" >&2
  local decode=("decode only: vips avg" "$O" "${X2[@]}" 'vips avg "$1" > "$OUT/$(basename "${1%.*}").avg"')
  measure decode
  mkdir -p "$V"
  for f in "${INPUTS[@]}"; do vips copy "$f" "$V/$(basename "${f%.*}").v" 2>/dev/null || true; done
  local saved=("${INPUTS[@]}")
  INPUTS=("$V"/*.v)
  local encode=("encode only: vips copy .v → jpg Q85" "$O" "${X2[@]}" 'vips copy "$1" "$OUT/$(basename "${1%.*}").jpg[Q=85]"')
  measure encode
  INPUTS=("${saved[@]}")
  rm -rf "$V"
  R_TIME[decode+encode]=$(awk -v a="${R_TIME[decode only: vips avg]}" -v b="${R_TIME[encode only: vips copy .v → jpg Q85]}" 'BEGIN {printf "%.3f", a+b}')
  R_CPU[decode+encode]=$(awk -v a="${R_CPU[decode only: vips avg]}" -v b="${R_CPU[encode only: vips copy .v → jpg Q85]}" 'BEGIN {printf "%.2f", a+b}')
  R_RSS[decode+encode]=-; R_FAIL[decode+encode]=0; R_EXIT[decode+encode]=-
  table "W3: floors (ratio = floor time / imgprep W1 time)" imgprep \
    "decode only: vips avg" "encode only: vips copy .v → jpg Q85" "decode+encode"
  aim "W1: imgprep's whole conversion over vips' decode alone (W3)" "$(ratio "${W1_TIME:-0}" "${R_TIME[decode only: vips avg]}")" 0.85 at-most
}

# Camera-size quality-95 JPEGs for W4/W5. The corpus has too few (its big JPEGs are q73, q97, q99
# and one odd 4640x3472 file), so they are made at bench time from the device HEICs with heif-convert
# -q 95 into the temp dir (for a file holding two images, its first image is kept).
make_q95_jpegs() {
  local f stem
  Q95=$TMP/q95; mkdir -p "$Q95"
  for f in "${HEICS[@]}"; do
    stem=$(basename "${f%.*}")
    heif-convert --quiet -q 95 "$f" "$Q95/$stem.jpg" >/dev/null 2>&1 || true
    [[ -f $Q95/$stem.jpg ]] || { [[ -f $Q95/$stem-1.jpg ]] && mv "$Q95/$stem-1.jpg" "$Q95/$stem.jpg"; }
    rm -f "$Q95/$stem"-[0-9]*.jpg
  done
  Q95_JPEGS=("$Q95"/*.jpg)
  ((${#Q95_JPEGS[@]} > 0)) || die "could not make any q95 JPEG with heif-convert"
}

# W4: JPEG q95 -> at most BUDGET bytes. All three aim at the same 1,000,000-byte budget.
w4_byte_budget() {
  local O=$TMP/out4 l f stem b q
  echo "== W4: JPEG q95 → ≤ $BUDGET bytes" >&2
  local ours=(imgprep "$O/imgprep" "$IMGPREP" compress --max-bytes "$BUDGET" "${INPUTS[@]}" -o "$O/imgprep" -j 2 --json) alone
  in_process alone ours
  local im=("ImageMagick jpeg:extent" "$O/im" "${X2[@]}" '"$CONVERT" "$1" -define jpeg:extent='"$BUDGET"' "$OUT/$(basename "$1")"')
  # jpegoptim -S keeps its source if it cannot shrink it; --force makes it always write the output.
  local jo=("jpegoptim -S$JPEGOPTIM_KB" "$O/jo" "${X2[@]}" 'jpegoptim --quiet --force -S'"$JPEGOPTIM_KB"' --dest="$OUT" "$1"')
  measure ours alone im jo
  cp "$TMP/stdout-imgprep.txt" "$TMP/imgprep.json"
  isolation_cost "W4: JPEG q95 → ≤ $BUDGET bytes"

  # Budget columns: files over budget, max overshoot, mean quality (identify's estimate for all three
  # so they are compared with the same ruler; imgprep's own --json quality is listed per file below).
  declare -A OVER MAXOVER QSUM
  local -A dir=([imgprep]=imgprep ["ImageMagick jpeg:extent"]=im ["jpegoptim -S$JPEGOPTIM_KB"]=jo)
  {
    printf 'file'; for l in imgprep "ImageMagick jpeg:extent" "jpegoptim -S$JPEGOPTIM_KB"; do printf '\t%s' "$l"; done; echo
  } >"$TMP/perfile.tsv"
  for f in "${INPUTS[@]}"; do
    stem=$(basename "$f")
    printf '%s' "${stem%.*}" >>"$TMP/perfile.tsv"
    for l in imgprep "ImageMagick jpeg:extent" "jpegoptim -S$JPEGOPTIM_KB"; do
      if [[ -s $O/${dir[$l]}/$stem ]]; then
        b=$(stat -c %s "$O/${dir[$l]}/$stem"); q=$(identify -format '%Q' "$O/${dir[$l]}/$stem" 2>/dev/null || echo '?')
      else
        b=0; q='-'
      fi
      if ((b > BUDGET)); then
        OVER[$l]=$((${OVER[$l]:-0} + 1))
        ((b - BUDGET > ${MAXOVER[$l]:-0})) && MAXOVER[$l]=$((b - BUDGET))
      fi
      [[ $q =~ ^[0-9]+$ ]] && QSUM[$l]="${QSUM[$l]:-} $q"
      printf '\t%s B q%s' "$b" "$q" >>"$TMP/perfile.tsv"
    done
    echo >>"$TMP/perfile.tsv"
  done

  emit ""
  emit "### W4: camera JPEG q95 → ≤ 1,000,000 bytes (imgprep --max-bytes 1000000, convert -define jpeg:extent=1000000, jpegoptim -S$JPEGOPTIM_KB = $((JPEGOPTIM_KB * 1024)) B)"
  emit ""
  emit "| tool | median s | ratio to imgprep | CPU s (user+sys) | CPU ratio | peak RSS MB | failed files | non-zero exits | files > 1,000,000 B | max overshoot B | mean quality (identify %Q) |"
  emit "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"
  for l in imgprep "$IN_PROCESS" "ImageMagick jpeg:extent" "jpegoptim -S$JPEGOPTIM_KB"; do
    [[ $l == "$IN_PROCESS" ]] && { emit "| $l | ${R_TIME[$l]} | $(ratio "${R_TIME[$l]}" "${R_TIME[imgprep]}") | ${R_CPU[$l]} | $(ratio "${R_CPU[$l]}" "${R_CPU[imgprep]}") | ${R_RSS[$l]} | ${R_FAIL[$l]}/${#INPUTS[@]} | ${R_EXIT[$l]} | | | |"; continue; }
    local mq
    mq=$(echo "${QSUM[$l]:-}" | awk '{s=0; for (i=1;i<=NF;i++) s+=$i; if (NF) printf "%.1f", s/NF; else print "-"}')
    emit "| $l | ${R_TIME[$l]} | $(ratio "${R_TIME[$l]}" "${R_TIME[imgprep]}") | ${R_CPU[$l]} | $(ratio "${R_CPU[$l]}" "${R_CPU[imgprep]}") | ${R_RSS[$l]} | ${R_FAIL[$l]}/${#INPUTS[@]} | ${R_EXIT[$l]} | ${OVER[$l]:-0} | ${MAXOVER[$l]:-0} | $mq |"
  done
  commands imgprep "$IN_PROCESS" "ImageMagick jpeg:extent" "jpegoptim -S$JPEGOPTIM_KB"
  headline "W4 (JPEG to at most $(commas "$BUDGET") bytes; files over it: imgprep ${OVER[imgprep]:-0}, ImageMagick ${OVER[ImageMagick jpeg:extent]:-0}, jpegoptim ${OVER[jpegoptim -S$JPEGOPTIM_KB]:-0})" \
    "ImageMagick jpeg:extent" "jpegoptim -S$JPEGOPTIM_KB"
  local enc
  # Files already within budget are copied by imgprep (0 encodes): give the mean with and without them.
  enc=$(jq -rs '[.[] | select(.status == "ok") | .encodes] as $e | ($e | map(select(. > 0))) as $r
      | "\(($e | add / length * 100 | round) / 100) over all \($e | length) files, \(($r | add / length * 100 | round) / 100) over the \($r | length) re-encoded ones"' \
      "$TMP/imgprep.json" 2>/dev/null || echo '?')
  emit ""
  emit "imgprep average encodes per file: $enc"
  emit ""
  emit "Per file (bytes, identify's quality; imgprep's own --json quality/encodes in brackets, qnull = copied unchanged)."
  emit "imgprep writes upright pixels (EXIF orientation applied, tag reset); ImageMagick and jpegoptim keep the"
  emit "pixels as stored and the Orientation tag, so a rotated source can fit at a different quality."
  emit ""
  emit "| file | imgprep | ImageMagick jpeg:extent | jpegoptim -S$JPEGOPTIM_KB |"
  emit "|---|---:|---:|---:|"
  while IFS=$'\t' read -r file a b c; do
    local jq_q
    jq_q=$(jq -r --arg s "$file" 'select(.input? != null and (.input | test("/" + $s + "\\.jpg$"))) | "\(.quality)/\(.encodes) enc"' "$TMP/imgprep.json" 2>/dev/null | head -1)
    emit "| $file | $a [q${jq_q:-?}] | $b | $c |"
  done < <(tail -n +2 "$TMP/perfile.tsv")
}


# cache: the W1 photos converted with an empty --cache, then a fresh copy of them (new paths, new
# modification times, as a CI checkout gives) converted again with that cache: the second run reads
# and hashes each input and writes the cached bytes.
cache_workload() {
  local dir=$TMP/cache run cold=() warm=() identical=yes f fails=0 statuses=()
  echo "== cache: cold run, then a fresh copy with the warm cache" >&2
  for ((run = 1; run <= BENCH_RUNS; run++)); do
    rm -rf "$dir"; mkdir -p "$dir/a" "$dir/b"
    cp "${HEICS[@]}" "$dir/a/"
    ((BENCH_QUIET_WAIT > 0)) && wait_quiet
    timed "$IMGPREP" convert "$dir"/a/* -o "$dir/out-a" -j 2 --quiet --cache "$dir/cache"
    cold+=("$TIMED_SECONDS"); statuses+=("$TIMED_STATUS")
    cp "$dir"/a/* "$dir/b/"   # new paths and mtimes
    ((BENCH_QUIET_WAIT > 0)) && wait_quiet
    timed "$IMGPREP" convert "$dir"/b/* -o "$dir/out-b" -j 2 --quiet --cache "$dir/cache"
    warm+=("$TIMED_SECONDS"); statuses+=("$TIMED_STATUS")
    for f in "$dir"/out-a/*; do cmp -s "$f" "$dir/out-b/$(basename "$f")" || identical=no; done
    for d in out-a out-b; do
      f=$((${#HEICS[@]} - $(count_outputs "$dir/$d" "${HEICS[@]}")))
      ((f > fails)) && fails=$f
    done
  done
  IMGPREP_FAILS=$((IMGPREP_FAILS + fails))
  local c w
  c=$(printf '%s\n' "${cold[@]}" | median); w=$(printf '%s\n' "${warm[@]}" | median)
  emit ""
  emit "### Output cache: a fresh checkout of the ${#HEICS[@]} W1 photos, converted again with a warm --cache"
  emit ""
  emit "| run | median s | share of the cold run |"
  emit "|---|---:|---:|"
  emit "| cold (empty cache) | $c | 100% |"
  emit "| warm (new paths and mtimes) | $w | $(awk -v a="$w" -v b="$c" 'BEGIN {printf "%.1f%%", 100 * a / b}') |"
  emit ""
  emit "Outputs of the warm run byte-identical to the cold run's: $identical; most files failed in a run: $fails; exit statuses: ${statuses[*]}"
  emit ""
  emit "Command line: \`imgprep convert DIR/* -o OUT -j 2 --quiet --cache CACHE\` (cold: DIR=a, then warm: DIR=b, a fresh copy)"
  HEADLINES+=("- warm cache over a fresh checkout: $(awk -v a="$w" -v b="$c" 'BEGIN {printf "%.1f%%", 100 * a / b}') of the cold run's time, outputs byte-identical: $identical")
  rm -rf "$dir"
}

# timed CMD... : runs CMD; sets TIMED_SECONDS (wall time) and TIMED_STATUS (its exit status).
timed() {
  local t0 t1
  t0=$(date +%s%N); "$@" >/dev/null 2>&1; TIMED_STATUS=$?; t1=$(date +%s%N)
  TIMED_SECONDS=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b-a)/1e9}')
}

# stream: a list of 100,000 paths arriving on a pipe over about 3 seconds (a small photo, 10 device
# photos, then paths of files that do not exist, which fail at once): how soon the first output is
# written while the list is still arriving, and how much memory the whole list costs.
stream_workload() {
  local dir=$TMP/stream
  echo "== stream: 100,000 paths on a slow pipe" >&2
  rm -rf "$dir"; mkdir -p "$dir"
  ((BENCH_QUIET_WAIT > 0)) && wait_quiet
  python3 - "$dir" "$IMGPREP" "$REPO/scripts/peak-rss.py" "$REPO/Tests/Fixtures/heic/gps-p3.heic" "${HEICS[@]:0:10}" >"$dir/result" <<'PY'
import os, subprocess, sys, threading, time
out, imgprep, peak_rss, photos = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
start = time.monotonic()
p = subprocess.Popen(['python3', peak_rss, imgprep, 'convert', '--files-from', '-', '-o', out + '/out', '--json', '-j', '2'],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
def feed():
    for photo in photos:
        p.stdin.write((photo + '\n').encode())
    p.stdin.flush()
    for chunk in range(100):   # 99,990 more paths, a hundred bursts over about 3 s
        p.stdin.write(''.join(f'{out}/missing/{chunk}-{i}.heic\n' for i in range(1000 - (len(photos) if chunk == 0 else 0))).encode())
        p.stdin.flush()
        time.sleep(0.03)
    p.stdin.close()
threading.Thread(target=feed).start()
first = None
ok = 0
for line in p.stdout:
    if b'"status":"ok"' in line:
        ok += 1
        if first is None:
            first = time.monotonic() - start
err = p.stderr.read().decode()
p.wait()
total = time.monotonic() - start
peak = [l for l in err.splitlines() if l.startswith('peak-rss:')][-1].split()[1]
print(f'{first if first is not None else float("nan"):.3f} {total:.3f} {int(peak) // 1024} {ok} {p.returncode}')
PY
  local first total peak ok rc
  read -r first total peak ok rc <"$dir/result"
  ((ok < 11)) && IMGPREP_FAILS=$((IMGPREP_FAILS + 11 - ok))
  emit ""
  emit "### A list of 100,000 paths on a pipe, arriving over about 3 s (11 photos first, the first one small)"
  emit ""
  emit "The other 99,989 paths name files that do not exist: each fails at once with one line, so the exit status is 1."
  emit ""
  emit "| first output written after | whole list done after | peak memory (all processes) | photos converted | exit status |"
  emit "|---:|---:|---:|---:|---:|"
  emit "| ${first} s | ${total} s | ${peak} MB | ${ok}/11 | ${rc} |"
  emit ""
  emit "Command line: \`LIST | imgprep convert --files-from - -o OUT --json -j 2\`"
  HEADLINES+=("- a streamed list of 100,000 paths: first output after ${first} s, whole list in ${total} s, ${peak} MB peak")
  rm -rf "$dir"
}

# urls: 200 small JPEGs served from 127.0.0.1 (scripts/http-test-server.py, with ETags) made into
# 320-pixel thumbnails: imgprep fetching the URLs itself with an empty --http-cache (cold) and with the
# cache of an earlier run (warm: every URL revalidated, 304s), against curl downloading them first and
# imgprep converting the files, and against ImageMagick reading the URLs (Debian's policy may refuse:
# then curl + ImageMagick stands in, and the page says so).
urls_workload() {
  local dir=$TMP/urls O=$TMP/urls/out i port="" deadline
  echo "== urls: 200 images from 127.0.0.1, cold and warm" >&2
  rm -rf "$dir"; mkdir -p "$dir/root" "$O"
  "$CONVERT" "$REPO/Tests/Fixtures/jxl/exif.jpg" -resize 640x480! "$dir/base.png"
  for ((i = 0; i < 200; i++)); do
    "$CONVERT" "$dir/base.png" -modulate 100,100,$((i * 100 / 200 + 50)) -quality 90 "$dir/root/$(printf 'img%03d' "$i").jpg"
  done
  mkfifo "$dir/server-stdin"
  python3 "$REPO/scripts/http-test-server.py" --root "$dir/root" --log "$dir/requests.log" <"$dir/server-stdin" >"$dir/port" &
  local server=$!
  exec {hold}>"$dir/server-stdin"   # the server ends when this closes
  deadline=$((SECONDS + 30))
  while [[ -z $port && $SECONDS -lt $deadline ]]; do sleep 0.1; port=$(head -1 "$dir/port" 2>/dev/null); done
  [[ -n $port ]] || die "the test server did not start"
  local saved=("${INPUTS[@]}")
  INPUTS=()
  for ((i = 0; i < 200; i++)); do INPUTS+=("http://127.0.0.1:$port/etag/$(printf 'img%03d' "$i").jpg"); done
  printf '%s\n' "${INPUTS[@]}" >"$dir/urls.txt"
  export URLS_LIST=$dir/urls.txt URLS_HC_COLD=$dir/hc-cold URLS_HC_WARM=$dir/hc-warm URLS_DL=$dir/dl IMGPREP
  "$IMGPREP" convert --files-from "$URLS_LIST" -o "$dir/fill" --max-dimension 320 -j 2 --quiet --http-cache "$URLS_HC_WARM" ||
    echo "  (filling the warm cache: exit $?)" >&2
  local ours=(imgprep "$O/cold" sh -c 'rm -rf "$URLS_HC_COLD"; exec "$IMGPREP" convert --files-from "$URLS_LIST" -o "$OUT" --max-dimension 320 -j 2 --quiet --http-cache "$URLS_HC_COLD"')
  local warm=("imgprep, warm --http-cache" "$O/warm" "$IMGPREP" convert --files-from "$URLS_LIST" -o "$O/warm" --max-dimension 320 -j 2 --quiet --http-cache "$URLS_HC_WARM")
  local fetch='rm -rf "$URLS_DL" && mkdir -p "$URLS_DL" && cd "$URLS_DL" && xargs -a "$URLS_LIST" curl -sS --fail --parallel --parallel-max 2 --remote-name-all'
  local curl_ours=("curl + imgprep" "$O/curl" sh -c "$fetch"' && exec "$IMGPREP" convert "$URLS_DL"/* -o "$OUT" --max-dimension 320 -j 2 --quiet')
  local curl_im=("curl + ImageMagick" "$O/curl-im" sh -c "$fetch"' && ls | xargs -P 2 -I{} "$CONVERT" {} -resize "320x320>" -quality 85 "$OUT/{}"')
  local im=("ImageMagick (URLs)" "$O/im" "${X2[@]}" '"$CONVERT" "$1" -resize "320x320>" -quality 85 "$OUT/$(basename "$1")"')
  local im_note im_check=$dir/im-check.jpg
  if "$CONVERT" "${INPUTS[0]}" "$im_check" 2>"$dir/im.err" && [[ -s $im_check ]]; then
    measure ours warm curl_ours curl_im im
  else
    im_note="ImageMagick cannot read the URLs here: $(head -1 "$dir/im.err" | sed "s|$TMP|/tmp/bench|g; s|$port|PORT|g") (Debian's default policy.xml refuses the HTTP, HTTPS and URL coders). It is not timed; curl + ImageMagick stands in for it."
    measure ours warm curl_ours curl_im
  fi
  local requests304
  requests304=$(grep -c ' 304$' "$dir/requests.log")
  R_CMD[imgprep]="imgprep convert --files-from URLS -o OUT --max-dimension 320 -j 2 --quiet --http-cache EMPTY_DIR"
  R_CMD["imgprep, warm --http-cache"]="imgprep convert --files-from URLS -o OUT --max-dimension 320 -j 2 --quiet --http-cache WARM_DIR (filled by one untimed run before)"
  R_CMD["curl + imgprep"]="cd DL && xargs -a URLS curl -sS --fail --parallel --parallel-max 2 --remote-name-all && imgprep convert DL/* -o OUT --max-dimension 320 -j 2 --quiet"
  R_CMD["curl + ImageMagick"]="cd DL && xargs -a URLS curl -sS --fail --parallel --parallel-max 2 --remote-name-all && ls | xargs -P 2 -I{} $CONVERT {} -resize '320x320>' -quality 85 OUT/{}"
  table "urls: 200 JPEGs (640x480) from 127.0.0.1 → 320 px thumbnails" imgprep imgprep "imgprep, warm --http-cache" "curl + imgprep" "curl + ImageMagick" "ImageMagick (URLs)"
  emit ""
  emit "The warm runs revalidate every URL (If-None-Match, the server answers 304): $requests304 requests answered 304 over the timed runs and the memory run.${im_note:+ $im_note}"
  headline "urls (200 images from 127.0.0.1)" "imgprep, warm --http-cache" "curl + imgprep" "curl + ImageMagick" "ImageMagick (URLs)"
  exec {hold}>&-
  wait "$server" 2>/dev/null
  INPUTS=("${saved[@]}")
  rm -rf "$dir"
}

# W6: HEIC -> WebP q80 (both keep the metadata; vips writes the pixels as stored plus the tag, we turn them).
w6_webp() {
  local O=$TMP/out6
  echo "== W6: HEIC → WebP q80" >&2
  local ours=(imgprep "$O" "$IMGPREP" convert "${INPUTS[@]}" --to webp --quality 80 -o "$O" -j 2 --quiet)
  local vips=("vips copy" "$O" "${X2[@]}" 'vips copy "$1" "$OUT/$(basename "${1%.*}").webp[Q=80]"')
  measure ours vips
  table "W6: HEIC → WebP q80" imgprep imgprep "vips copy"
  headline "W6 (HEIC to WebP)" "vips copy"
  aim "W6: vips copy's time over imgprep's" "$(ratio "${R_TIME[vips copy]}" "${R_TIME[imgprep]}")" 1.15 at-least
}

# W7: camera JPEG q95 -> WebP of at most WEBP_BUDGET bytes, metadata included: imgprep's search against
# cwebp's own size targeting (-size with 6 passes, -metadata all so both carry EXIF/XMP/ICC).
w7_webp_budget() {
  local O=$TMP/out7 l f stem b over maxover
  echo "== W7: JPEG q95 → WebP ≤ $WEBP_BUDGET bytes" >&2
  local ours=(imgprep "$O/imgprep" "$IMGPREP" compress --to webp --max-bytes "$WEBP_BUDGET" "${INPUTS[@]}" -o "$O/imgprep" -j 2 --json)
  local cwebp=("cwebp -size -pass 6" "$O/cwebp" "${X2[@]}" 'cwebp -quiet -size '"$WEBP_BUDGET"' -pass 6 -metadata all "$1" -o "$OUT/$(basename "${1%.*}").webp"')
  measure ours cwebp
  cp "$TMP/stdout-imgprep.txt" "$TMP/imgprep7.json"
  emit ""
  emit "### W7: camera JPEG q95 → WebP ≤ 500,000 bytes (imgprep compress --to webp --max-bytes 500000, cwebp -size 500000 -pass 6 -metadata all)"
  emit ""
  emit "| tool | median s | ratio to imgprep | CPU s (user+sys) | CPU ratio | peak RSS MB | failed files | non-zero exits | files > 500,000 B | max overshoot B |"
  emit "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
  local -A dir=([imgprep]=imgprep ["cwebp -size -pass 6"]=cwebp) OVER7=()
  for l in imgprep "cwebp -size -pass 6"; do
    over=0; maxover=0
    for f in "${INPUTS[@]}"; do
      stem=$(basename "${f%.*}")
      [[ -s $O/${dir[$l]}/$stem.webp ]] || continue
      b=$(stat -c %s "$O/${dir[$l]}/$stem.webp")
      if ((b > WEBP_BUDGET)); then over=$((over + 1)); ((b - WEBP_BUDGET > maxover)) && maxover=$((b - WEBP_BUDGET)); fi
    done
    emit "| $l | ${R_TIME[$l]} | $(ratio "${R_TIME[$l]}" "${R_TIME[imgprep]}") | ${R_CPU[$l]} | $(ratio "${R_CPU[$l]}" "${R_CPU[imgprep]}") | ${R_RSS[$l]} | ${R_FAIL[$l]}/${#INPUTS[@]} | ${R_EXIT[$l]} | $over | $maxover |"
    OVER7[$l]=$over
  done
  commands imgprep "cwebp -size -pass 6"
  headline "W7 (JPEG to WebP of at most $(commas "$WEBP_BUDGET") bytes; files over it: imgprep ${OVER7[imgprep]}, cwebp ${OVER7[cwebp -size -pass 6]})" "cwebp -size -pass 6"
  local trials
  trials=$(jq -rs '[.[] | select(.status == "ok") | .encodes] | "\((add / length * 100 | round) / 100) over \(length) files"' "$TMP/imgprep7.json" 2>/dev/null || echo '?')
  emit ""
  emit "imgprep average trials (full-size encodes) per file: $trials; qualities: $(jq -rs '[.[] | select(.status == "ok") | .quality | tostring] | join(" ")' "$TMP/imgprep7.json" 2>/dev/null)"
}

# W8: HEIC -> AVIF q50 at the same libaom speed (vips heifsave effort = 9 - speed), 8-bit, 4:2:0.
w8_avif() {
  local O=$TMP/out8
  export AVIF_EFFORT=$((9 - AOM_SPEED))
  echo "== W8: HEIC → AVIF q50, libaom speed $AOM_SPEED" >&2
  local ours=(imgprep "$O" "$IMGPREP" convert "${INPUTS[@]}" --to avif --quality 50 -o "$O" -j 2 --quiet)
  local vips=("vips copy" "$O" "${X2[@]}" 'vips copy "$1" "$OUT/$(basename "${1%.*}").avif[Q=50,compression=av1,effort=$AVIF_EFFORT,bitdepth=8]"')
  measure ours vips
  table "W8: HEIC → AVIF q50 (libaom speed $AOM_SPEED; vips effort $AVIF_EFFORT)" imgprep imgprep "vips copy"
  headline "W8 (HEIC to AVIF)" "vips copy"
  aim "W8: vips copy's time over imgprep's" "$(ratio "${R_TIME[vips copy]}" "${R_TIME[imgprep]}")" 2 at-least
}

# set: a web image set, every device photo in 3 widths x 3 formats (AVIF q50 at libaom speed AOM_SPEED,
# WebP q80, JPEG q85: imgprep's defaults), from one decode per photo; against one vipsthumbnail per
# variant (9 decodes per photo, as a shell loop does it) and against 9 separate imgprep runs.
SET_WIDTHS="480 960 1920"
# single: the latency of one large photo, the largest device HEIC (by pixels) to full-size JPEG q85: imgprep
# with one thread and with its default (the tiles in parallel bands), against vips copy, 3 rounds at least.
single_workload() {
  local O=$TMP/out f largest= most=0 pixels
  for f in "${HEICS[@]}"; do
    pixels=$(($(vipsheader -f width "$f" 2>/dev/null || echo 0) * $(vipsheader -f height "$f" 2>/dev/null || echo 0)))
    ((pixels > most)) && most=$pixels && largest=$f
  done
  local saved=("${INPUTS[@]}")
  INPUTS=("$largest")
  local name="single: one $(awk -v p="$most" 'BEGIN {printf "%.1f", p / 1e6}') MP HEIC ($(basename "$largest")) → JPEG full size q85"
  echo "== $name" >&2
  local ours=(imgprep "$O" "$IMGPREP" convert "$largest" --to jpeg --quality 85 -o "$O" --quiet)
  local one=("imgprep, one thread (IMGPREP_THREADS_PER_IMAGE=1)" "$O" env IMGPREP_THREADS_PER_IMAGE=1 "$IMGPREP" convert "$largest" --to jpeg --quality 85 -o "$O" --quiet)
  local vips=("vips copy" "$O" vips copy "$largest" "$O/$(basename "${largest%.*}").jpg[Q=85]")
  measure_interleaved "$((BENCH_RUNS > 3 ? BENCH_RUNS : 3))" ours one vips
  table "$name" imgprep imgprep "imgprep, one thread (IMGPREP_THREADS_PER_IMAGE=1)" "vips copy"
  headline "single (one large HEIC to JPEG, latency)" "imgprep, one thread (IMGPREP_THREADS_PER_IMAGE=1)" "vips copy"
  INPUTS=("${saved[@]}")
}

set_workload() {
  local O=$TMP/outset
  export AVIF_EFFORT=$((9 - AOM_SPEED)) SET_WIDTHS IMGPREP
  echo "== set: HEIC → 3 widths × 3 formats" >&2
  local ours=(imgprep "$O" "$IMGPREP" convert "${INPUTS[@]}" --to avif,webp,jpeg --widths "${SET_WIDTHS// /,}" -o "$O" -j 2 --quiet)
  local thumb=("vipsthumbnail per variant" "$O" "${X2[@]}" 'for w in $SET_WIDTHS; do
      vipsthumbnail "$1" -s "${w}x100000>" -o "$OUT/%s-$w.avif[Q=50,compression=av1,effort=$AVIF_EFFORT,bitdepth=8]" &&
      vipsthumbnail "$1" -s "${w}x100000>" -o "$OUT/%s-$w.webp[Q=80]" &&
      vipsthumbnail "$1" -s "${w}x100000>" -o "$OUT/%s-$w.jpg[Q=85]" || exit 1; done')
  local separate=("imgprep, 9 separate runs" "$O" sh -c 'for w in $SET_WIDTHS; do for f in avif webp jpeg; do
      "$IMGPREP" convert "$@" --to "$f" --widths "$w" -o "$OUT" -j 2 --quiet || exit 1; done; done' set-runs "${INPUTS[@]}")
  # What one decode costs (with one resize and a tiny encode): the part a set saves 8 of.
  local floor=("imgprep, one 480 px JPEG per photo (the decode floor)" "$O" "$IMGPREP" convert "${INPUTS[@]}" --to jpeg --widths 480 -o "$O" -j 2 --quiet)
  measure ours thumb separate floor
  table "set: HEIC → 3 widths ($SET_WIDTHS) × AVIF q50, WebP q80, JPEG q85" imgprep imgprep "vipsthumbnail per variant" "imgprep, 9 separate runs" \
    "imgprep, one 480 px JPEG per photo (the decode floor)"
  emit ""
  emit "Nine separate runs do what the set does plus 8 more decodes per photo, so with these encoders they can take at most about 1 + 8 × floor / set as long: $(awk -v f="${R_CPU[imgprep, one 480 px JPEG per photo (the decode floor)]:-0}" -v s="${R_CPU[imgprep]:-0}" 'BEGIN { if (s > 0) printf "%.2fx", 1 + 8 * f / s; else print "-" }') by CPU time here (the encodes, the same in both, are the rest)."
  headline "set (HEIC to a web image set, 9 variants per photo)" "vipsthumbnail per variant" "imgprep, 9 separate runs"
  aim "set: vipsthumbnail per variant's time over imgprep's" "$(ratio "${R_TIME[vipsthumbnail per variant]}" "${R_TIME[imgprep]}")" 4 at-least
}

# W10: HEIC -> JPEG XL at JXL_QUALITY, libjxl effort JXL_EFFORT for both: vips jxlsave gets the distance
# cjxl's (and imgprep's) quality mapping gives, so the same libjxl encodes the same target. Bytes beside
# the times: vips keeps no EXIF or XMP in JPEG XL, imgprep does.
w10_jxl() {
  local O=$TMP/out10 d l f stem
  d=$(awk -v q="$JXL_QUALITY" 'BEGIN { if (q >= 30) d = 0.1 + (100 - q) * 0.09; else d = 6.4 + 2.5 ^ ((30 - q) / 5) / 6.25; printf "%.3f", d }')
  export JXL_DISTANCE=$d JXL_EFFORT
  echo "== W10: HEIC → JPEG XL q$JXL_QUALITY (distance $d), effort $JXL_EFFORT" >&2
  local ours=(imgprep "$O/imgprep" "$IMGPREP" convert "${INPUTS[@]}" --to jxl --quality "$JXL_QUALITY" -o "$O/imgprep" -j 2 --quiet)
  local vips=("vips copy" "$O/vips" "${X2[@]}" 'vips copy "$1" "$OUT/$(basename "${1%.*}").jxl[distance=$JXL_DISTANCE,effort=$JXL_EFFORT]"')
  measure ours vips
  table "W10: HEIC → JPEG XL q$JXL_QUALITY (distance $d, effort $JXL_EFFORT)" imgprep imgprep "vips copy"
  local -A total=()
  for l in imgprep vips; do
    total[$l]=0
    for f in "$O/$l"/*.jxl; do [[ -f $f ]] && total[$l]=$((total[$l] + $(stat -c %s "$f"))); done
  done
  emit ""
  emit "- bytes written: imgprep $(commas "${total[imgprep]}") (with the photos' EXIF and XMP), vips $(commas "${total[vips]}") (without)"
  headline "W10 (HEIC to JPEG XL)" "vips copy"
}

# W11: the corpus's camera JPEGs recompressed losslessly into JPEG XL (djxl gives back each input byte
# for byte), against cjxl, which does the same by default: time, and the bytes saved.
w11_jxl_recompress() {
  local O=$TMP/out11 f stem l exact=0 in_total=0
  local -A total=()
  echo "== W11: JPEG → JPEG XL, lossless recompression (${#INPUTS[@]} files)" >&2
  local ours=(imgprep "$O/imgprep" "$IMGPREP" convert "${INPUTS[@]}" --to jxl --lossless -o "$O/imgprep" -j 2 --quiet)
  local cjxl=("cjxl" "$O/cjxl" "${X2[@]}" 'cjxl --quiet "$1" "$OUT/$(basename "${1%.*}").jxl"')
  measure ours cjxl
  table "W11: JPEG → JPEG XL, lossless recompression (${#INPUTS[@]} files)" imgprep imgprep cjxl
  # The outputs of each tool's last (untimed, memory-sampled) run are still there.
  for f in "${INPUTS[@]}"; do
    stem=$(basename "${f%.*}")
    in_total=$((in_total + $(stat -c %s "$f")))
    djxl "$O/imgprep/$stem.jxl" "$O/back.jpg" >/dev/null 2>&1 && cmp -s "$f" "$O/back.jpg" && exact=$((exact + 1))
  done
  for l in imgprep cjxl; do
    total[$l]=0
    for f in "$O/$l"/*.jxl; do [[ -f $f ]] && total[$l]=$((total[$l] + $(stat -c %s "$f"))); done
  done
  emit ""
  emit "- inputs $(commas "$in_total") bytes; imgprep $(commas "${total[imgprep]}") ($(awk -v a="${total[imgprep]}" -v b="$in_total" 'BEGIN {printf "%.1f", 100 * (1 - a / b)}')% saved), cjxl $(commas "${total[cjxl]}") ($(awk -v a="${total[cjxl]}" -v b="$in_total" 'BEGIN {printf "%.1f", 100 * (1 - a / b)}')% saved); imgprep's files that \`djxl\` turns back into the input byte for byte: $exact/${#INPUTS[@]}; imgprep stores EXIF and XMP uncompressed, so that exiftool 12.57 reads them, where cjxl brotli-compresses them"
  headline "W11 (JPEG to JPEG XL, lossless; imgprep saves $(awk -v a="${total[imgprep]}" -v b="$in_total" 'BEGIN {printf "%.1f", 100 * (1 - a / b)}')% of the bytes, cjxl $(awk -v a="${total[cjxl]}" -v b="$in_total" 'BEGIN {printf "%.1f", 100 * (1 - a / b)}')%)" cjxl
}

# W9: HEIC -> AVIF of at most AVIF_BUDGET bytes, metadata included. No rival here has a byte budget for
# AVIF (libavif 0.11's avifenc has no --target-size; vips and sharp have none), so this is imgprep alone,
# run once: files over the budget (checked on disk), trials per file and the time.
w9_avif_budget() {
  local O=$TMP/out9 f b over=0 t0 t1 rc cmd
  echo "== W9: HEIC → AVIF ≤ $AVIF_BUDGET bytes" >&2
  rm -rf "$O"; mkdir -p "$O"
  ((BENCH_QUIET_WAIT > 0)) && wait_quiet
  cmd=("$IMGPREP" compress --to avif --max-bytes "$AVIF_BUDGET" "${INPUTS[@]}" -o "$O" -j 2 --json)
  t0=$(date +%s%N)
  "${cmd[@]}" >"$TMP/imgprep9.json" 2>/dev/null
  rc=$?
  t1=$(date +%s%N)
  for f in "$O"/*.avif; do
    [[ -e $f ]] || continue
    b=$(stat -c %s "$f"); ((b > AVIF_BUDGET)) && over=$((over + 1))
  done
  emit ""
  emit "### W9: device photo HEIC → AVIF ≤ $(commas "$AVIF_BUDGET") bytes (imgprep compress --to avif, one run; no rival offers an AVIF byte budget)"
  emit ""
  emit "| files written | failed | exit status | files over the budget | wall s | average trials (full-size encodes) per file | probe encodes per file |"
  emit "|---:|---:|---:|---:|---:|---:|---:|"
  emit "| $(ls "$O" | wc -l)/${#INPUTS[@]} | $(jq -s '[.[] | select(.status == "failed")] | length' "$TMP/imgprep9.json") | $rc | $over | $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b-a)/1e9}') | $(jq -rs '[.[] | select(.status == "ok") | .encodes] | (add / length * 100 | round) / 100' "$TMP/imgprep9.json") | $(jq -rs '[.[] | select(.status == "ok") | (.probes // 0)] | (add / length * 10 | round) / 10' "$TMP/imgprep9.json") |"
  emit ""
  emit "qualities chosen: $(jq -rs '[.[] | select(.status == "ok") | .quality | tostring] | join(" ")' "$TMP/imgprep9.json")"
  jq -r 'select(.status == "failed") | "failed: \(.input | split("/") | last): \(.error)"' "$TMP/imgprep9.json" | while IFS= read -r line; do emit "$line"; done
  emit ""
  emit "Command line: \`$(show_command "${cmd[@]}")\`"
  HEADLINES+=("- W9 (HEIC to AVIF of at most $(commas "$AVIF_BUDGET") bytes, no rival has one): $over files over it, $(jq -s '[.[] | select(.status == "failed")] | length' "$TMP/imgprep9.json") failed")
}

# W12: perceptual quality. The device photos at a 2048-pixel long edge: JPEG at a fixed quality 85 against
# `--quality auto` (SSIMULACRA 2 of at least 80), each output scored by `imgprep compare` against the same
# picture written losslessly (PNG); then `--to auto` against each single format, all with --quality auto.
# With SSIMULACRA2=/path/to/the/reference/ssimulacra2 (cloudinary/ssimulacra2, built by hand: it is no
# Debian package) the reference scores the same pairs too: its time per pair and its largest difference.
w12_perceptual() {
  local O=$TMP/out12 f stem l s fmt t0 t1 line
  echo "== W12: perceptual quality, JPEG q85 against --quality auto, at 2048 px" >&2
  rm -rf "$O"; mkdir -p "$O/ref"
  "$IMGPREP" convert "${INPUTS[@]}" --to png --max-dimension 2048 -o "$O/ref" -j 2 --quiet || die "W12: the lossless references failed"
  local fixed=("imgprep --quality 85" "$O/q85" "$IMGPREP" convert "${INPUTS[@]}" --to jpeg --quality 85 --max-dimension 2048 -o "$O/q85" -j 2 --quiet)
  local auto=("imgprep --quality auto" "$O/auto" "$IMGPREP" convert "${INPUTS[@]}" --to jpeg --quality auto --max-dimension 2048 -o "$O/auto" -j 2 --json)
  measure fixed auto
  cp "$TMP/stdout-imgprep___quality_auto.txt" "$TMP/imgprep12.json"
  # The timed runs' outputs are gone (each run empties its directory): write both once more to score them.
  rm -rf "$O/q85" "$O/auto"
  "${fixed[@]:2}" >/dev/null 2>&1; "${auto[@]:2}" >"$TMP/imgprep12.json" 2>/dev/null
  # score DIR EXT : "stem score" per input, by imgprep compare against the lossless picture.
  score() { for f in "${INPUTS[@]}"; do stem=$(basename "${f%.*}"); printf '%s %s\n' "$stem" "$("$IMGPREP" compare "$O/ref/$stem.png" "$1/$stem.$2" 2>/dev/null || echo nan)"; done; }
  score "$O/q85" jpg >"$TMP/scores-q85.txt"; score "$O/auto" jpg >"$TMP/scores-auto.txt"
  # stats FILE : mean, lowest, how many below 80
  stats() { awk '{n++; s += $2; if (n == 1 || $2 < lo) lo = $2; if ($2 < 80) b++} END {printf "%.1f %.1f %d", s / n, lo, b}' "$1"; }
  bytes() { local t=0; for f in "$1"/*."$2"; do [[ -f $f ]] && t=$((t + $(stat -c %s "$f"))); done; echo "$t"; }
  local q85=($(stats "$TMP/scores-q85.txt")) au=($(stats "$TMP/scores-auto.txt")) b85 bau
  b85=$(bytes "$O/q85" jpg); bau=$(bytes "$O/auto" jpg)
  emit ""
  emit "### W12: device photo HEIC → JPEG at 2048 px: fixed quality 85 against --quality auto (SSIMULACRA 2 ≥ 80)"
  emit ""
  emit "| | median s | time ratio | CPU s | user s | system s | bytes | bytes ratio | mean score | lowest score | files below 80 |"
  emit "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  emit "| --quality 85 | ${R_TIME[imgprep --quality 85]} | 1.00 | ${R_CPU[imgprep --quality 85]} | ${R_USER[imgprep --quality 85]} | ${R_SYS[imgprep --quality 85]} | $(commas "$b85") | 1.00 | ${q85[0]} | ${q85[1]} | ${q85[2]}/${#INPUTS[@]} |"
  emit "| --quality auto | ${R_TIME[imgprep --quality auto]} | $(ratio "${R_TIME[imgprep --quality auto]}" "${R_TIME[imgprep --quality 85]}") | ${R_CPU[imgprep --quality auto]} | ${R_USER[imgprep --quality auto]} | ${R_SYS[imgprep --quality auto]} | $(commas "$bau") | $(ratio "$bau" "$b85") | ${au[0]} | ${au[1]} | ${au[2]}/${#INPUTS[@]} |"
  emit ""
  emit "- scores by \`imgprep compare\` against the same picture written losslessly (\`imgprep convert --to png --max-dimension 2048\`); qualities --quality auto chose: $(jq -rs '[.[] | select(.status == "ok") | .quality | tostring] | join(" ")' "$TMP/imgprep12.json"); scored encodes per file: $(jq -rs '[.[] | select(.status == "ok") | (.scores // 0)] | (add / length * 100 | round) / 100' "$TMP/imgprep12.json")"
  commands "imgprep --quality 85" "imgprep --quality auto"
  aim "W12: --quality auto's time over --quality 85's (JPEG, 2048 px)" "$(ratio "${R_TIME[imgprep --quality auto]}" "${R_TIME[imgprep --quality 85]}")" 1.3 at-most
  aim "W12: --quality auto's system time over --quality 85's" "$(ratio "${R_SYS[imgprep --quality auto]}" "${R_SYS[imgprep --quality 85]}")" 2 at-most
  HEADLINES+=("- W12 (JPEG at 2048 px, SSIMULACRA 2): --quality auto writes $(ratio "$bau" "$b85") of quality 85's bytes in $(ratio "${R_TIME[imgprep --quality auto]}" "${R_TIME[imgprep --quality 85]}")x its time; lowest score ${au[1]} against quality 85's ${q85[1]} (${q85[2]} of ${#INPUTS[@]} quality-85 files below 80)")

  # --to auto against each single format, one run each.
  emit ""
  emit "#### --to auto against each single format, all with --quality auto (one run each)"
  emit ""
  emit "| --to | wall s | bytes | bytes ratio to --to auto | mean score | lowest score | formats chosen |"
  emit "|---|---:|---:|---:|---:|---:|---|"
  local -A tb=() ta=()
  for fmt in auto avif webp jpeg; do
    rm -rf "$O/to-$fmt"; mkdir -p "$O/to-$fmt"
    ((BENCH_QUIET_WAIT > 0)) && wait_quiet
    t0=$(date +%s%N)
    "$IMGPREP" convert "${INPUTS[@]}" --to "$fmt" --quality auto --max-dimension 2048 -o "$O/to-$fmt" -j 2 --json >"$TMP/to-$fmt.json" 2>/dev/null
    t1=$(date +%s%N)
    ta[$fmt]=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b-a)/1e9}')
    tb[$fmt]=$(jq -s '[.[] | select(.status == "ok") | .bytes] | add' "$TMP/to-$fmt.json")
    line="| $fmt | $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b-a)/1e9}') | $(commas "${tb[$fmt]}") | $(ratio "${tb[$fmt]}" "${tb[auto]}") | $(jq -rs '[.[] | select(.status == "ok") | .score] | (add / length * 10 | round) / 10' "$TMP/to-$fmt.json") | $(jq -rs '[.[] | select(.status == "ok") | .score] | min * 10 | round / 10' "$TMP/to-$fmt.json") | $(jq -rs '[.[] | select(.status == "ok") | .format] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' "$TMP/to-$fmt.json") |"
    emit "$line"
  done
  emit ""
  emit "Command line: \`$(show_command "$IMGPREP" convert "${INPUTS[@]}" --to auto --quality auto --max-dimension 2048 -o "$O/to-auto" -j 2 --json)\`"
  HEADLINES+=("- W12 (--to auto, SSIMULACRA 2 ≥ 80): $(ratio "${tb[auto]}" "${tb[jpeg]}") of --to jpeg's bytes, $(ratio "${tb[auto]}" "${tb[webp]}") of webp's, $(ratio "${tb[auto]}" "${tb[avif]}") of avif's")
  aim "W12: --to auto --quality auto's time over --to jpeg --quality 85's" "$(ratio "${ta[auto]}" "${R_TIME[imgprep --quality 85]}")" 1.6 at-most

  # The metric's own cost: imgprep compare per pair (decoding both PNGs included), and the reference's.
  local pairs=0 n=0 ours_s ref_s maxdiff=0 a b
  t0=$(date +%s%N)
  for f in "${INPUTS[@]}"; do stem=$(basename "${f%.*}"); "$IMGPREP" compare "$O/ref/$stem.png" "$O/q85/$stem.jpg" >/dev/null 2>&1 && pairs=$((pairs + 1)); done
  t1=$(date +%s%N)
  ours_s=$(awk -v a="$t0" -v b="$t1" -v n="$pairs" 'BEGIN {printf "%.3f", (b-a)/1e9/n}')
  line="- the metric: \`imgprep compare\` takes $ours_s s per 2048-pixel pair, decoding both files included (one process per pair, one after another)"
  if [[ -n ${SSIMULACRA2:-} && -x $SSIMULACRA2 ]]; then
    t0=$(date +%s%N)
    while read -r stem a; do
      b=$("$SSIMULACRA2" "$O/ref/$stem.png" "$O/q85/$stem.jpg" 2>/dev/null) || continue
      n=$((n + 1)); maxdiff=$(awk -v x="$a" -v y="$b" -v m="$maxdiff" 'BEGIN {d = x - y; if (d < 0) d = -d; print (d > m ? d : m)}')
    done <"$TMP/scores-q85.txt"
    t1=$(date +%s%N)
    ref_s=$(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN {printf "%.3f", (b-a)/1e9/n}')
    line+="; the reference ssimulacra2 takes $ref_s s ($(ratio "$ref_s" "$ours_s")x); largest difference between the two scores over these $n pairs: $(printf '%.2f' "$maxdiff")"
  fi
  emit ""
  emit "$line"
}

# The metric alone on one device photo at 2048 px (sRGB PNG against its quality-85 JPEG): one trial in
# process (scripts/ssim2-trial.c: the original prepared once, then the candidate scored, best of 5, on one
# thread and on two; and the pair in one pass, as compare scores it), then `imgprep compare` beside the reference ssimulacra2 (SSIMULACRA2, or built from
# SSIMULACRA2_SRC by scripts/build-ssimulacra2.sh), each run BENCH_RUNS times in turn, median wall and CPU.
metric_workload() {
  local O=$TMP/metric cc=cc i line trial ours=() ref=() out
  mkdir -p "$O"
  command -v clang >/dev/null && cc=clang   # the compiler SwiftPM builds the C module with
  "$IMGPREP" convert "${INPUTS[0]}" --to png --color srgb --max-dimension 2048 -o "$O/a.png" --quiet &&
    "$IMGPREP" convert "$O/a.png" --to jpeg -q 85 -o "$O/a.jpg" --quiet || die "metric: cannot make the pair"
  "$CONVERT" "$O/a.png" "$O/a.ppm" && "$CONVERT" "$O/a.jpg" "$O/b.ppm" || die "metric: cannot write PPMs"
  "$cc" -O2 -pthread -I "$REPO/Sources/CSSIMULACRA2/include" "$REPO/scripts/ssim2-trial.c" "$REPO"/Sources/CSSIMULACRA2/[a-z]*.c \
    -lm -o "$O/ssim2-trial" || die "metric: cannot build scripts/ssim2-trial.c"
  if [[ -z ${SSIMULACRA2:-} && -n ${SSIMULACRA2_SRC:-} ]]; then SSIMULACRA2=$("$REPO/scripts/build-ssimulacra2.sh" "$SSIMULACRA2_SRC") || SSIMULACRA2=; fi
  ((BENCH_QUIET_WAIT > 0)) && wait_quiet
  trial=$("$O/ssim2-trial" "$O/a.ppm" "$O/b.ppm" 5) || die "metric: ssim2-trial failed"
  # metric_timed NAME CMD... : appends "wall user+sys maxrss_kb" of one run to the array NAME (bash
  # functions are global: named apart from the cache and stream workloads' `timed`)
  metric_timed() { local -n into=$1; shift; out=$( { /usr/bin/time -f '%e %U %S %M' "$@" >/dev/null; } 2>&1 | tail -1); into+=("$(awk '{printf "%s %.2f %d", $1, $2 + $3, $4}' <<<"$out")"); }
  for ((i = 0; i < BENCH_RUNS; i++)); do
    metric_timed ours "$IMGPREP" compare "$O/a.png" "$O/a.jpg"
    [[ -n ${SSIMULACRA2:-} && -x $SSIMULACRA2 ]] && metric_timed ref "$SSIMULACRA2" "$O/a.png" "$O/a.jpg"
  done
  col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{print $c}' | median; }
  local size ms1 ms2 mp
  read -r size ms1 ms2 <<<"$(awk '{print $4, $8, $10}' <<<"$trial")"
  emit ""
  emit "### The metric: one trial in process, and \`imgprep compare\` beside the reference"
  emit ""
  emit "- one 2048-px device photo ($size, sRGB) against its quality-85 JPEG; in process (scripts/ssim2-trial.c, built with $cc -O2): $(awk '{print $6}' <<<"$trial") ms per megapixel to prepare the original (once per search), $ms1 ms/MP per trial on one thread, $ms2 on two; a pair in one pass as compare scores it (nothing kept), on two threads: $(awk '{print $12}' <<<"$trial") ms/MP; score $(awk '{print $2}' <<<"$trial")"
  line="- \`imgprep compare\` (decoding both files included): $(col 1 "${ours[@]}") s, $(col 2 "${ours[@]}") s CPU, peak RSS $(( $(col 3 "${ours[@]}") / 1024 )) MB; score $("$IMGPREP" compare "$O/a.png" "$O/a.jpg")"
  if ((${#ref[@]} > 0)); then
    line+="; the reference ssimulacra2 built from source ($SSIMULACRA2): $(col 1 "${ref[@]}") s, $(col 2 "${ref[@]}") s CPU, peak RSS $(( $(col 3 "${ref[@]}") / 1024 )) MB, score $("$SSIMULACRA2" "$O/a.png" "$O/a.jpg"): imgprep takes $(ratio "$(col 1 "${ours[@]}")" "$(col 1 "${ref[@]}")")x its time, $(ratio "$(col 2 "${ours[@]}")" "$(col 2 "${ref[@]}")")x its CPU"
    aim "the metric: imgprep compare's time over the reference ssimulacra2's" "$(ratio "$(col 1 "${ours[@]}")" "$(col 1 "${ref[@]}")")" 0.25 at-most
  else
    line+="; no reference binary (set SSIMULACRA2, or SSIMULACRA2_SRC to a cloudinary/ssimulacra2 checkout)"
  fi
  emit "$line (medians of $BENCH_RUNS runs, taken in turn)"
  aim "the metric: one trial's ms per megapixel on one thread" "$ms1" 30 at-most
}

# ---------------------------------------------------------------------------------------------------
# Main

# HDR: photos with a gain map to JPEG q85, the gain map kept as Ultra HDR against the same conversion
# with --hdr drop (plain SDR). No rival writes an iPhone gain map as Ultra HDR, so imgprep meets itself.
hdr_workload() {
  local O=$TMP/outh name="HDR: gain-map photos → Ultra HDR JPEG q85"
  INPUTS=()
  for f in heic/libvips__apple-heic-gainmap.heic jpeg/libvips__ultra-hdr.jpg; do
    [[ -f $CORPUS/$f ]] && INPUTS+=("$CORPUS/$f")
  done
  ((${#INPUTS[@]} > 0)) || { echo "  (no gain-map photos in the corpus: HDR skipped)" >&2; return; }
  echo "== $name (${#INPUTS[@]} files)" >&2
  local sdr=("imgprep --hdr drop" "$O" "$IMGPREP" convert "${INPUTS[@]}" --to jpeg --quality 85 --hdr drop -o "$O" -j 2 --quiet)
  local ours=(imgprep "$O" "$IMGPREP" convert "${INPUTS[@]}" --to jpeg --quality 85 -o "$O" -j 2 --quiet)
  measure sdr ours
  table "$name" "imgprep --hdr drop" "imgprep --hdr drop" imgprep
  emit ""
  emit "- inputs: $(for f in "${INPUTS[@]}"; do basename "$f"; done | paste -sd' ' -); ratio is against \`--hdr drop\`"
  HEADLINES+=("- HDR (gain-map photos to Ultra HDR JPEG): keeping the gain map takes $(ratio "${R_TIME[imgprep]}" "${R_TIME[imgprep --hdr drop]}")x the time of the SDR conversion")
}

# GIF: animated GIFs → animated WebP at quality 80 (lossy) and lossless, against gif2webp and vips.
# Inputs: pans across corpus photos made here with ImageMagick, plus the animated fixtures. Bytes and
# mean PSNR, photo pans and synthetic fixtures apart, when the test venv is there: every output against
# gif2webp's lossless output, sampled at the middle of each frame's time (scripts/compare-animations.py,
# read by Pillow). That reference is what a browser shows (the tests prove imgprep --lossless shows
# exactly the same); Pillow's own reading of a GIF is not: it plays delays of 0 and 10 ms as written and
# clears "restore to background" to the background colour, so even a lossless copy scored 23 dB.
# Then gif2webp -lossy at other qualities (untimed), to give its bytes at imgprep's PSNR.
gif_workload() {
  local O=$TMP/outg dir=$TMP/gifs f i=0 l q
  mkdir -p "$dir"
  for f in "${HEICS[@]:0:4}"; do
    vips copy "$f" "$dir/base-$i.png" 2>/dev/null || continue
    "$CONVERT" "$dir/base-$i.png" -resize 480x360^ -gravity center -extent 480x360 "$dir/base-$i.png" 2>/dev/null
    local crops=() x
    for x in 0 30 60 90 120 150 180 210; do crops+=("(" "$dir/base-$i.png" -crop "240x180+$x+$((x / 2))" +repage ")"); done
    "$CONVERT" -delay 8 -loop 0 "${crops[@]}" -layers Optimize "$dir/pan-$i.gif" 2>/dev/null
    rm -f "$dir/base-$i.png"
    i=$((i + 1))
  done
  for f in "$REPO"/Tests/Fixtures/gif/{orbit,wave,stripes,disposal}.gif; do [[ -f $f ]] && cp "$f" "$dir/"; done
  INPUTS=("$dir"/*.gif)
  echo "== GIF: animated GIF → animated WebP (${#INPUTS[@]} files)" >&2
  # A run takes a fifth of a second, so a moment of a busy neighbour weighs on it: three times the runs.
  local lossy=(imgprep "$O/imgprep" "$IMGPREP" convert "${INPUTS[@]}" --to webp --quality 80 -o "$O/imgprep" -j 2 --quiet)
  local g2w_lossy=("gif2webp -lossy" "$O/gif2webp" "${X2[@]}" 'gif2webp -quiet -lossy -q 80 "$1" -o "$OUT/$(basename "${1%.*}").webp"')
  local g2w_mixed=("gif2webp -mixed" "$O/gif2webp-mixed" "${X2[@]}" 'gif2webp -quiet -mixed -q 80 "$1" -o "$OUT/$(basename "${1%.*}").webp"')
  local vips=("vips copy" "$O/vips" "${X2[@]}" 'vips copy "$1[n=-1]" "$OUT/$(basename "${1%.*}").webp[Q=80]"')
  local lossless=("imgprep --lossless" "$O/imgprep-ll" "$IMGPREP" convert "${INPUTS[@]}" --to webp --lossless -o "$O/imgprep-ll" -j 2 --quiet)
  local g2w_lossless=("gif2webp (lossless)" "$O/gif2webp-ll" "${X2[@]}" 'gif2webp -quiet "$1" -o "$OUT/$(basename "${1%.*}").webp"')
  measure_interleaved $((3 * BENCH_RUNS)) lossy g2w_lossy g2w_mixed vips lossless g2w_lossless
  table "GIF: animated GIF → animated WebP, q80 and lossless (${#INPUTS[@]} files)" imgprep imgprep "gif2webp -lossy" "gif2webp -mixed" "vips copy" "imgprep --lossless" "gif2webp (lossless)"
  headline "GIF (animated GIF to animated WebP q80)" "gif2webp -lossy" "gif2webp -mixed" "vips copy"
  [[ -x $REPO/.venv-test/bin/python ]] || { emit ""; emit "(no test venv: bytes and PSNR not measured; run make testenv)"; return; }
  # Every quality from 76 to 84, around imgprep's PSNR, for the equal-PSNR bytes (not in the table).
  local qualities=(60 70 75 76 77 78 79 81 82 83 84 85 90)
  for q in "${qualities[@]}"; do
    mkdir -p "$O/gif2webp-q$q"
    for f in "$dir"/pan-*.gif; do gif2webp -quiet -lossy -q "$q" "$f" -o "$O/gif2webp-q$q/$(basename "${f%.*}").webp"; done
  done
  # The last timed run of each is left in place (measure's untimed memory run writes the outputs again).
  local rows=() sub
  for l in imgprep:imgprep "gif2webp -lossy:gif2webp" "gif2webp -mixed:gif2webp-mixed" "vips copy:vips" "imgprep --lossless:imgprep-ll" "gif2webp (lossless):gif2webp-ll"; do
    rows+=("${l%%:*}" "$O/${l##*:}")
  done
  for q in "${qualities[@]}"; do
    if ((q % 5)); then rows+=("gif2webp -lossy -q $q (curve)" "$O/gif2webp-q$q"); else rows+=("gif2webp -lossy -q $q" "$O/gif2webp-q$q"); fi
  done
  "$REPO/.venv-test/bin/python" - "$REPO/scripts/compare-animations.py" "$O/gif2webp-ll" "$dir" "${rows[@]}" <<'PY' | while IFS= read -r line; do emit "$line"; done
import glob, json, os, subprocess, sys
script, reference, sources, rows = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
names = sorted(os.path.basename(f)[:-4] for f in glob.glob(os.path.join(sources, "*.gif")))
groups = {"photo pans": [n for n in names if n.startswith("pan-")], "synthetic": [n for n in names if not n.startswith("pan-")]}
def metadata_bytes(data):
    """The ICCP, EXIF and XMP chunks of a WebP file, headers and padding included."""
    total, at = 0, 12
    while at + 8 <= len(data):
        size = int.from_bytes(data[at + 4:at + 8], "little")
        if data[at:at + 4] in (b"ICCP", b"EXIF", b"XMP "):
            total += 8 + size + size % 2
        at += 8 + size + size % 2
    return total
def measure(directory, group):
    total, metadata, psnrs = 0, 0, []
    for name in groups[group]:
        path = os.path.join(directory, name + ".webp")
        if not os.path.exists(path):
            return None
        run = subprocess.run([sys.executable, script, os.path.join(reference, name + ".webp"), path], capture_output=True, text=True)
        data = open(path, "rb").read()
        total += len(data)
        metadata += metadata_bytes(data)
        psnrs.append(json.loads(run.stdout)["mean_psnr"])
    return total, sum(psnrs) / len(psnrs), metadata
results = {label: {g: measure(d, g) for g in groups} for label, d in zip(rows[::2], rows[1::2])}
def cell(r): return "- | - | -" if r is None else "{:,} | {:,} | {:.2f}".format(r[0], r[2], r[1])
print("")
print("Bytes (all, and of them the ICC profile, EXIF and XMP chunks: imgprep keeps a GIF's ICC profile, gif2webp drops it) and mean PSNR (dB, 100 = identical) against gif2webp's lossless output; photo pans: "
      + " ".join(groups["photo pans"]) + "; synthetic: " + " ".join(groups["synthetic"]) + ".")
print("")
print("| tool | photo pans: bytes | metadata | PSNR | synthetic: bytes | metadata | PSNR |")
print("|---|---:|---:|---:|---:|---:|---:|")
for label, r in results.items():
    if label.endswith("(curve)"):
        continue
    print("| %s | %s | %s |" % (label, cell(r["photo pans"]), cell(r["synthetic"])))
# gif2webp -lossy's bytes at imgprep's PSNR on the photo pans, linear between its two nearest qualities
# (one quality apart around imgprep's).
ours = results["imgprep"]["photo pans"]
curve = sorted((r["photo pans"][1], r["photo pans"][0], r["photo pans"][2]) for label, r in results.items() if label.startswith("gif2webp -lossy") and r["photo pans"])
curve = [(p, b - m) for p, b, m in curve]
below = [c for c in curve if ours and c[0] <= ours[1]]; above = [c for c in curve if ours and c[0] >= ours[1]]
print("")
if ours and below and above:
    (p0, b0), (p1, b1) = below[-1], above[0]
    theirs = b0 if p1 == p0 else b0 + (b1 - b0) * (ours[1] - p0) / (p1 - p0)
    pictures = ours[0] - ours[2]
    print("At equal PSNR on the photo pans (%.2f dB), gif2webp -lossy would write %s bytes (between its qualities at %.2f and %.2f dB); imgprep writes %s, %+.1f%%, or %s without the metadata gif2webp drops, %+.1f%%."
          % (ours[1], "{:,}".format(round(theirs)), p0, p1, "{:,}".format(ours[0]), 100 * (ours[0] / theirs - 1),
             "{:,}".format(pictures), 100 * (pictures / theirs - 1)))
else:
    print("imgprep's PSNR on the photo pans is outside gif2webp's qualities 60-90: no equal-PSNR comparison.")
PY
}

wanted() { [[ " $BENCH_WORKLOADS " == *" $1 "* ]]; }

# One file per workload from here on (the others above are still to be moved out).
source "$REPO/scripts/bench-graphics.sh"

for t in vips vipsthumbnail heif-convert jpegoptim identify jq cwebp cjxl djxl curl optipng pngquant zopflipng; do have "$t" || die "$t missing (make bench-deps)"; done
have "$CONVERT" || die "ImageMagick convert missing (make bench-deps)"

# head LINE... : lines for the top of the page (machine, versions, method), written before any run.
head_emit() { printf '%s\n' "$@" >>"$HEAD_TMP"; }

# Versions of the Debian packages behind every tool and library measured (those installed).
package_versions() {
  dpkg-query -W -f='${Package} ${Version}\n' libheif1 libheif-examples libde265-0 libaom3 'libx265-[0-9]*' libdav1d6 \
    libvips42 libvips-tools 'imagemagick-6.q16' 'libmagickcore-6.q16-[0-9]*' jpegoptim webp libwebp7 \
    libjpeg62-turbo libjpeg-turbo8 libturbojpeg0 libpng16-16 liblcms2-2 libexif12 2>/dev/null |
    awk 'NF == 2 {printf "%s`%s %s`", sep, $1, $2; sep = ", "}'
}

head_emit "# Benchmark" "" \
  "Written by \`make bench\` (\`scripts/bench.sh\`) on $(date -u '+%Y-%m-%d %H:%M UTC'): every line of this page comes from that run; nothing here is edited by hand. Run \`make bench\` again to replace it." "" \
  "## Machine and versions" "" \
  "- machine: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), nproc $(nproc), $(awk '/MemTotal/ {printf "%.1f GB RAM", $2/1048576}' /proc/meminfo); load before the run: $(cut -d' ' -f1-3 /proc/loadavg)" \
  "- OS: $( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null), Linux $(uname -r)" \
  "- imgprep: $("$IMGPREP" --version 2>/dev/null | paste -sd';' - | sed 's/;/; /g'), release build of $(date -u -r "$IMGPREP" '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')$([[ -n $(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null) ]] && echo ' with uncommitted changes')" \
  "- rivals: vips $(vips --version | sed 's/vips-//'); heif-convert and heif-enc from libheif $(dpkg-query -W -f='${Version}' libheif1 2>/dev/null) (encoders: $(heif-enc --list-encoders 2>/dev/null | grep -oE '(AOMedia|x265)[^]]*\]' | sed 's/ \[default\]//' | paste -sd';' - | sed 's/;/, /g')); ImageMagick $("$CONVERT" -version | awk 'NR==1 {print $3, $4}') ($CONVERT, Debian's default policy); $(jpegoptim --version | head -1 | awk '{print $1, $2}'); cwebp $(cwebp -version 2>/dev/null | head -1)" \
  "- packages: $(package_versions)" "" \
  "## Method" "" \
  "- run: \`BENCH_RUNS=$BENCH_RUNS BENCH_WORKLOADS=\"$BENCH_WORKLOADS\" BENCH_QUIET_WAIT=$BENCH_QUIET_WAIT BENCH_200MP=$BENCH_200MP bash scripts/bench.sh\`, corpus \`$CORPUS\`" \
  "- each tool converts 2 files at a time: imgprep with \`-j 2\` (its worker processes), each rival through \`xargs -P 2\`, one process per file, as people run them; the command lines are under each table" \
  "- time: the median of the timed runs ($BENCH_RUNS per tool and workload; for GIF, whose runs are short, $((3 * BENCH_RUNS))), every tool taken in turn (one run of each, then the next round), so a shared machine's busy moments fall on all alike, wall clock around the whole batch, and CPU time (user + system of all processes, steadier on a shared machine); before each run the script waits up to ${BENCH_QUIET_WAIT} s for the machine's other users to take less than 15% of the CPUs" \
  "- isolation: imgprep's runs with worker processes and the same command in one process (\`IMGPREP_ISOLATION=off\`: the same threads per picture, the same memory gate), a row of its own in each table that has it" \
  "- peak RSS: all of the tool's processes together (imgprep: the main process and its workers; xargs: all its children), sampled every 5 ms in one more, untimed run; imgprep runs with its default \`--memory-limit\`" \
  "- failed files: the most inputs any timed run left without an output; non-zero exits: those of the run with the most, per file for a rival (\`exit 1 on 3 files\`, \`SIGSEGV on 1 file\`) and for imgprep's one process" \
  "- ratio: the tool's time over imgprep's (above 1: imgprep is faster)" "" \
  "## Workloads" "" \
  "- **W1**: device photos (HEIC) to full-size JPEG at quality 85, the everyday conversion" \
  "- **W2**: the same photos to JPEG with the long edge at most 2048 pixels (a resize)" \
  "- **single**: one large device photo to full-size JPEG, for latency: imgprep with its threads and with one, against vips" \
  "- **W3**: floors for W1: decoding alone and encoding alone, as libvips does them, the least any tool must spend" \
  "- **W4**: camera JPEGs at quality 95 (made from the device photos with \`heif-convert -q 95\`) compressed to at most $(commas "$BUDGET") bytes each" \
  "- **W5**: large JPEGs shrunk to a 1024-pixel long edge (thumbnails)" \
  "- **W6**: device photos to WebP at quality 80" \
  "- **W7**: the W4 JPEGs to WebP of at most $(commas "$WEBP_BUDGET") bytes each, metadata included" \
  "- **W8**: device photos to AVIF at quality 50, libaom at speed $AOM_SPEED for both tools" \
  "- **W9**: device photos to AVIF of at most $(commas "$AVIF_BUDGET") bytes each (no rival has an AVIF byte budget)" \
  "- **W10**: device photos to JPEG XL at imgprep's default quality ($JXL_QUALITY) and effort ($JXL_EFFORT), vips given the same distance and effort" \
  "- **W11**: the corpus's upright photo JPEGs without a gain map recompressed losslessly into JPEG XL (\`djxl\` gives each back byte for byte), against cjxl, which does the same by default" \
  "- **W12**: perceptual quality: the device photos at a 2048-pixel long edge as JPEG at quality 85 against \`--quality auto\` (the lowest quality whose SSIMULACRA 2 score is at least 80), with bytes, time and scores; then \`--to auto\` against each single format" \
  "- **set**: the device photos as a web image set, 3 widths × AVIF, WebP and JPEG (9 variants per photo), against one \`vipsthumbnail\` per variant and against 9 separate imgprep runs" \
  "- **cache**: the device photos converted with an empty \`--cache\`, then a fresh copy of them (new paths and modification times, as a CI checkout gives) converted again with that cache" \
  "- **HDR**: the corpus photos with a gain map (an iPhone HEIC, an Ultra HDR JPEG) to JPEG at quality 85, the map kept as Ultra HDR against \`--hdr drop\`" \
  "- **graphics**: screenshots, diagrams, icons with alpha, logos and pixel art installed by Debian packages (scripts/bench-graphics.tsv), as lossless PNG against optipng -o2, oxipng -o2, zopflipng and cwebp -lossless, and as palette PNG (\`--quality auto\`) against pngquant --quality 65-80, with bytes and SSIMULACRA 2" \
  "- **GIF**: animated GIFs (pans across four device photos, made with ImageMagick, and the animated test fixtures) to animated WebP at quality 80 and lossless, against gif2webp (-lossy and -mixed) and vips, with bytes and PSNR against what a browser shows (gif2webp's lossless output), photo pans and synthetic apart, and gif2webp's bytes at imgprep's PSNR" \
  "- **stream**: 100,000 paths arriving on a pipe over about 3 seconds: how soon the first output appears" \
  "- **urls**: 200 small JPEGs served from 127.0.0.1 made into 320-pixel thumbnails: imgprep fetching the URLs with an empty \`--http-cache\` and with a warm one (every URL revalidated), against curl downloading them and then imgprep or ImageMagick, and ImageMagick reading the URLs itself" \
  "- device photos: the ${#HEICS[@]} HEICs of the corpus's \`heic/\` that libheif 1.15 decodes: ${DEVICE_HEICS[*]}" \
  "" "Workloads in this run: $BENCH_WORKLOADS$([[ $BENCH_200MP == 1 ]] && echo ', and W1b: the 200 MP HEIC alone')."

INPUTS=("${HEICS[@]}")
emit "## Results"
wanted 1 && w1_full_size
W1_IMGPREP=${R_TIME[imgprep]:-0}; W1_IMGPREP_CPU=${R_CPU[imgprep]:-0}
wanted 2 && shrink_to 2048 "W2: HEIC → JPEG long edge 2048 q85" "W2: HEIC → JPEG long edge ≤ 2048 q85"
R_TIME[imgprep]=$W1_IMGPREP; R_CPU[imgprep]=$W1_IMGPREP_CPU   # W3's ratios are against W1's imgprep
wanted 3 && w3_floors
wanted single && single_workload

if [[ $BENCH_200MP == 1 && -f $CORPUS/heic/pillow_heif__200MP.heic ]]; then
  INPUTS=("$CORPUS/heic/pillow_heif__200MP.heic")
  w1_full_size "W1b: 200 MP HEIC (16320x12240, 1 file) → JPEG full size q85"
fi

if wanted 4 || wanted 5 || wanted 7; then make_q95_jpegs; fi
if wanted 4; then
  INPUTS=("${Q95_JPEGS[@]}")
  w4_byte_budget
fi

# W5 inputs: the corpus JPEGs with a long edge >= 3000 px plus the q95 camera JPEGs made above.
if wanted 5; then
  BIG=()
  for f in "$CORPUS"/jpeg/*.jp*g; do
    long=$(vipsheader -f width "$f" 2>/dev/null || echo 0); h=$(vipsheader -f height "$f" 2>/dev/null || echo 0)
    ((h > long)) && long=$h
    ((long >= 3000)) && BIG+=("$f")
  done
  INPUTS=("${BIG[@]}" "${Q95_JPEGS[@]}")
  emit ""
  emit "- W5 inputs: ${#BIG[@]} corpus JPEGs with long edge ≥ 3000 px ($(for f in "${BIG[@]}"; do basename "$f"; done | paste -sd' ' -)) + the ${#Q95_JPEGS[@]} q95 JPEGs of W4"
  shrink_to 1024 "W5: large JPEG → long edge 1024" "W5: large JPEG → JPEG long edge ≤ 1024 q85 (${#INPUTS[@]} files)"
fi

INPUTS=("${HEICS[@]}")
wanted 6 && w6_webp
wanted 8 && w8_avif
wanted 9 && w9_avif_budget
wanted 10 && w10_jxl
if wanted 11; then
  INPUTS=()
  for f in "${RECOMPRESS_JPEGS[@]}"; do [[ -f $CORPUS/jpeg/$f ]] && INPUTS+=("$CORPUS/jpeg/$f"); done
  w11_jxl_recompress
  INPUTS=("${HEICS[@]}")
fi
wanted 12 && w12_perceptual
wanted metric && metric_workload
wanted set && set_workload
if wanted 7; then
  INPUTS=("${Q95_JPEGS[@]}")
  w7_webp_budget
fi


wanted hdr && hdr_workload
wanted gif && gif_workload
wanted graphics && graphics_workload
wanted cache && cache_workload
wanted stream && stream_workload
wanted urls && urls_workload

emit ""
emit "## Around the runs"
if ((${#ISOLATION_COSTS[@]} > 0)); then
  HEADLINES+=("- what isolating each file in a worker process costs (imgprep's time over the same command in one process): $(IFS=';'; echo "${ISOLATION_COSTS[*]}" | sed 's/;/; /g')")
  emit ""
  emit "- what worker processes cost (imgprep's time over the same command without isolation, median of $BENCH_RUNS): $(IFS=';'; echo "${ISOLATION_COSTS[*]}" | sed 's/;/; /g')"
fi
emit ""
emit "- load after run: $(cut -d' ' -f1-3 /proc/loadavg); busiest the machine's other users were at the start of a timed run: ${MAX_BUSY}% of the CPUs (runs wait up to ${BENCH_QUIET_WAIT}s for < 15%)"

if [[ -n $BENCH_TABLE ]]; then
  mkdir -p "$(dirname "$BENCH_TABLE")"
  {
    cat "$HEAD_TMP"
    printf '\n## Headline\n\n'
    ((${#HEADLINES[@]} > 0)) && printf '%s\n' "${HEADLINES[@]}"
    if ((${#AIMS[@]} > 0)); then printf '\nAims (ratios of medians):\n\n'; printf '%s\n' "${AIMS[@]}"; fi
    printf '\n'
    cat "$TABLE_TMP"
  } >"$BENCH_TABLE.tmp" && mv "$BENCH_TABLE.tmp" "$BENCH_TABLE"
  echo "bench: page written to $BENCH_TABLE" >&2
fi

# imgprep failing on any of these valid inputs is a real error (after the table is written); a rival
# failing on a file is only counted in its row.
((IMGPREP_FAILS == 0)) || die "imgprep failed on $IMGPREP_FAILS file(s); see the 'failed files' columns"
exit 0
