#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer and AddressSanitizer (`make fuzz`).
#
# Builds one fuzzer binary from the ImagePrep sources with swiftc directly (no SwiftPM: it cannot
# add -sanitize=fuzzer), our C with the toolchain's clang, and the system libheif, libjpeg, libpng
# and libexif (not instrumented, but reached), then runs each target for FUZZ_SECONDS seconds.
#
#   FUZZ_SECONDS=60        seconds per target (default 60)
#   FUZZ_TARGETS="exif xmp" the targets to run (default: all the binary lists; see Tests/ImagePrepTests/FuzzTargets.swift)
#   IMGPREP_CORPUS=DIR     real photos to seed from (default ../shared/corpus when it exists)
#
# Seeds: Tests/Fixtures (the committed regression inputs of each target included), the shared corpus
# when present, and EXIF/XMP blocks exiftool extracts from them. Everything is copied into
# .build/fuzz/, never into the repository. Each target keeps its growing corpus in
# .build/fuzz/corpus/TARGET between runs. A crash, a sanitizer report, a broken precondition, an
# input that takes longer than 10 s or a leak stops that target: its input is saved in
# .build/fuzz/artifacts/TARGET/ and the script exits 1 after running the others.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${FUZZ_SECONDS:-60}
build=$root/.build/fuzz
# The system libraries imgprep builds against (as Package.swift does), by pkg-config name; libheif is
# opened at first use (Sources/CHeif/LazyHeif.c), so it is not linked.
packages="libheif libexif libbrotlidec libpng libjpeg libturbojpeg libwebpmux libwebpdemux libwebp lcms2"
# giflib, libdeflate and libimagequant have no pkg-config file on Debian 12; the system modules'
# module maps (Sources/C*/module.modulemap) name what they link, so those names are linked here too.
system_libraries=$(cat Sources/C*/module.modulemap | sed -n 's/^ *link "\(.*\)"/-l\1/p' | sort -u | tr '\n' ' ')

swiftc=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
clang=$(dirname "$swiftc")/clang   # the toolchain's clang has the libFuzzer and ASan runtimes
[[ -x $swiftc && -x $clang ]] || { echo "fuzz: swiftc and clang from the Swift toolchain are needed" >&2; exit 1; }
for package in $packages; do
  pkg-config --exists "$package" || { echo "fuzz: $package not found (run: make deps)" >&2; exit 1; }
done

mkdir -p "$build/obj" "$build/include" "$build/seeds" "$build/corpus" "$build/artifacts"

# ---- Build (skipped when nothing it is made from changed) ---------------------------------------
# (-print -quit: find stops at the first newer file; with grep -q alone it could be killed by SIGPIPE,
# which pipefail reads as "nothing newer".)
if [[ -x $build/imgprep-fuzz ]] && [[ -z $(find Sources Fuzz Tests/ImagePrepTests/FuzzTargets.swift Tests/ImagePrepTests/FormatFuzzTargets \
     scripts/fuzz.sh -newer "$build/imgprep-fuzz" -print -quit) ]]; then
  echo "fuzz: $build/imgprep-fuzz is up to date"
else
echo "fuzz: building (AddressSanitizer + libFuzzer coverage)"
# SwiftPM writes module maps for our C targets (every Sources/C*/ with C sources); swiftc needs its own.
c_targets=$(for dir in Sources/C*/; do if compgen -G "$dir*.c" >/dev/null; then basename "$dir"; fi; done)
for target in $c_targets; do
  printf 'module %s {\n    header "%s"\n    export *\n}\n' "$target" "$root/Sources/$target/include/$target.h"
done >"$build/include/module.modulemap"
rm -f "$build"/obj/*.o   # an object left from a deleted or renamed source would be linked too
for target in $c_targets; do
  for source in Sources/$target/*.c; do
    "$clang" -fsanitize=fuzzer-no-link,address -O1 -g -fPIC -I Sources/$target/include \
      $(pkg-config --cflags $packages) -c "$source" -o "$build/obj/$target-$(basename "$source" .c).o"
  done
done
# Every system-library module (a Sources/C*/ folder with its own module map) and ours.
modules=($(for map in Sources/C*/module.modulemap; do echo "-I $(dirname "$map")"; done) -I "$build/include"
  $(pkg-config --cflags-only-I libheif libexif libwebpmux lcms2 | sed 's/-I/-Xcc -I/g'))
mapfile -t library < <(find Sources/ImagePrep -name '*.swift' | sort)
"$swiftc" -module-name ImagePrep -parse-as-library -enable-testing -O -g -sanitize=fuzzer,address -wmo \
  "${modules[@]}" -emit-module -emit-module-path "$build/ImagePrep.swiftmodule" \
  -emit-object -o "$build/obj/ImagePrep.o" "${library[@]}"
# ld.gold warns about the sanitizer runtimes' symbol versions; harmless, so only errors are shown.
"$swiftc" -module-name ImagePrepFuzz -parse-as-library -O -g -sanitize=fuzzer,address \
  "${modules[@]}" -I "$build" Fuzz/Harness.swift Tests/ImagePrepTests/FuzzTargets.swift Tests/ImagePrepTests/FormatFuzzTargets/*.swift "$build"/obj/*.o \
  $(pkg-config --libs ${packages/libheif /}) $system_libraries -o "$build/imgprep-fuzz" 2> >(grep -v 'warning' >&2)
fi

# ---- Seeds -----------------------------------------------------------------------------------
corpus=${IMGPREP_CORPUS:-$root/../shared/corpus}
[[ -f $corpus/MANIFEST.tsv ]] || corpus=
rm -rf "$build/seeds" && mkdir -p "$build/seeds/files" "$build/seeds/exif" "$build/seeds/xmp"
copy_seeds() {   # copies files of at most $1 bytes found under the remaining arguments
  local limit=$1; shift
  find "$@" -type f -size -"$limit"c -not -name '*.md' -not -name '*.tsv' 2>/dev/null |
    while IFS= read -r file; do cp "$file" "$build/seeds/files/$(echo "$file" | tr '/' '_')"; done
}
# Every fixture folder but the fuzzer's own regression inputs, and the corpus.
copy_seeds 4000000 $(find Tests/Fixtures -mindepth 1 -maxdepth 1 -type d -not -name fuzz | sort) ${corpus:+"$corpus"}
if command -v exiftool >/dev/null; then   # one run each: -w writes a file per input that has the block
  exiftool -q -q -b -exif -w! "$build/seeds/exif/%f.%e.tiff" "$build/seeds/files" >/dev/null 2>&1 || true
  exiftool -q -q -b -xmp -w! "$build/seeds/xmp/%f.%e.xmp" "$build/seeds/files" >/dev/null 2>&1 || true
fi
echo "fuzz: seeds: $(ls "$build/seeds/files" | wc -l) files${corpus:+ (with the shared corpus)}, $(ls "$build/seeds/exif" | wc -l) EXIF and $(ls "$build/seeds/xmp" | wc -l) XMP blocks"

# ---- Run -------------------------------------------------------------------------------------
# Each target's name and longest input, as the binary declares them (FuzzTarget.all).
declare -A max_lengths=()
while read -r name length; do max_lengths[$name]=$length; done < <(ASAN_OPTIONS=detect_leaks=0 IMGPREP_FUZZ_LIST=1 "$build/imgprep-fuzz")
((${#max_lengths[@]})) || { echo "fuzz: $build/imgprep-fuzz lists no targets" >&2; exit 1; }
targets=${FUZZ_TARGETS:-$(ASAN_OPTIONS=detect_leaks=0 IMGPREP_FUZZ_LIST=1 "$build/imgprep-fuzz" | cut -d' ' -f1 | tr '\n' ' ')}
for target in $targets; do
  [[ -n ${max_lengths[$target]:-} ]] || { echo "fuzz: no target $target (there are: ${!max_lengths[*]})" >&2; exit 1; }
done
seed_dirs() {
  local dirs=("$build/seeds/files")
  case $1 in
    exif) dirs+=("$build/seeds/exif") ;;
    xmp) dirs+=("$build/seeds/xmp") ;;
  esac
  [[ -d Tests/Fixtures/fuzz/$1 ]] && dirs+=("$root/Tests/Fixtures/fuzz/$1")
  echo "${dirs[@]}"
}

failed=()
summary=()
for target in $targets; do
  mkdir -p "$build/corpus/$target" "$build/artifacts/$target"
  log=$build/$target.log
  echo "fuzz: $target for ${seconds}s"
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: 2 GB is far above a quarter-megapixel picture.
  # The Swift runtime's own crash backtracer reads memory ASan has poisoned: leave reports to ASan.
  # Leaks inside system codec libraries are suppressed by library name (Fuzz/lsan.supp); ours stay fatal.
  if SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$root/Fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
       IMGPREP_FUZZ_TARGET=$target "$build/imgprep-fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len="${max_lengths[$target]}" -print_final_stats=1 -artifact_prefix="$build/artifacts/$target/" \
       "$build/corpus/$target" $(seed_dirs "$target") >"$log" 2>&1; then
    status=clean
  else
    status="FOUND A PROBLEM (see $log and $build/artifacts/$target/)"
    failed+=("$target")
    grep -E 'ERROR: |SUMMARY: |Fatal error|Precondition failed|==[0-9]+==' "$log" | head -5 | sed 's/^/    /' >&2 || true
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  line=$(grep -E '^#[0-9]+' "$log" | tail -1)
  coverage=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$line")
  features=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$line")
  summary+=("$(printf '%-13s %10s runs  cov %6s  ft %6s  corpus %5s  %s' "$target" "$runs" "${coverage:-?}" "${features:-?}" \
    "$(ls "$build/corpus/$target" | wc -l)" "$status")")
done

echo
echo "fuzz: ${seconds}s per target"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "fuzz: problems in: ${failed[*]}. Reproduce with: SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$root/Fuzz/lsan.supp IMGPREP_FUZZ_TARGET=TARGET $build/imgprep-fuzz ARTIFACT" >&2
  exit 1
fi
