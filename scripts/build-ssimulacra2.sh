#!/usr/bin/env bash
# Builds the reference SSIMULACRA 2 tool (cloudinary/ssimulacra2) from a source checkout, for make bench's
# metric rows and scripts/ssimulacra2-accuracy.sh; prints the binary's path. The build needs no network
# (the checkout carries the libjxl parts it uses); fetching the repository is up to the caller.
#
#   scripts/build-ssimulacra2.sh /path/to/ssimulacra2-checkout [BUILD_DIR]   # default .build/ssimulacra2-reference
#
# Needs: build-essential cmake ninja-build libhwy-dev liblcms2-dev libpng-dev libjpeg62-turbo-dev (make bench-deps).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:?usage: build-ssimulacra2.sh SOURCE_CHECKOUT [BUILD_DIR]}
build=${2:-$root/.build/ssimulacra2-reference}
[[ -f $src/src/CMakeLists.txt ]] || { echo "build-ssimulacra2: $src is not a cloudinary/ssimulacra2 checkout (no src/CMakeLists.txt)" >&2; exit 1; }
mkdir -p "$build"
if [[ ! -x $build/ssimulacra2 ]]; then
  cmake -S "$src/src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$build/cmake.log" 2>&1 ||
    { echo "build-ssimulacra2: cmake failed, see $build/cmake.log" >&2; exit 1; }
  ninja -C "$build" ssimulacra2 >"$build/ninja.log" 2>&1 || { echo "build-ssimulacra2: ninja failed, see $build/ninja.log" >&2; exit 1; }
fi
echo "$build/ssimulacra2"
