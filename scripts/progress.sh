#!/usr/bin/env bash
# Runs a build or test command, passing its output through, and when nothing has come for 30 seconds says
# what is still running and for how long: the Swift compiler builds each module of a release build as one
# job that prints nothing until it ends (about 2 minutes each for the library and the test module on a
# 2-core machine).
# Usage: bash scripts/progress.sh COMMAND [ARGUMENTS...]   (exits with COMMAND's status)
set -uo pipefail
quiet=${PROGRESS_QUIET_SECONDS:-30}

# What the step the last line began is, for the line saying it is still going.
describe() {
  case $1 in
    # SwiftPM names a module when its compile ends, so a silence follows the line before it.
    *"Write sources"*|*"Write swift-version"*|*"Compiling C"*|*"Compiling ImagePrep "*|*"Compiling imgprep "*)
      echo "compiling (the library, the tool and the test module are one silent compiler job each, about 2 minutes of CPU apiece)" ;;
    *"Compiling ImagePrepTests "*|*"Emitting module ImagePrepTests"*) echo "compiling the tests' runner" ;;
    *"Linking"*) echo "linking" ;;
    *"Test "*|*"Suite "*) echo "running the tests (the slowest build a package on the library or convert the corpus)" ;;
    *) echo "working" ;;
  esac
}

relay() {
  local last="" pending="" chunk since=$SECONDS
  while :; do
    if IFS= read -r -t "$quiet" chunk; then
      printf '%s\n' "$pending$chunk"
      last=$pending$chunk pending="" since=$SECONDS
    elif (( $? > 128 )); then
      # Timed out: keep what part of a line came, and say what is running.
      pending+=$chunk
      printf '  ... still %s: %d s so far\n' "$(describe "${last:0:300}")" $((SECONDS - since))
    else
      [[ -z $pending$chunk ]] || printf '%s\n' "$pending$chunk"
      return
    fi
  done
}

"$@" 2>&1 | relay
exit "${PIPESTATUS[0]}"
