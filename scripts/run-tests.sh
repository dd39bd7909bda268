#!/usr/bin/env bash
# Runs the command given (make test's `swift test`), showing its output as it comes, and ends with what was
# skipped and why: Swift Testing's own closing line counts skipped tests among those run and says nothing
# of the suites skipped whole (without ../shared/corpus or .venv-test, for example).
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# Swift Testing marks each skip as: <symbol> Test|Suite <name> skipped: "<reason>"
awk '
  / (Test|Suite) .* skipped: "/ {
    kind = ($0 ~ / Suite .* skipped: "/ && !($0 ~ / Test .* skipped: "/)) ? "suite" : "test"
    reason = $0; sub(/^[^"]* skipped: "/, "", reason); sub(/"[^"]*$/, "", reason)
    count[reason, kind]++; reasons[reason] = 1; total[kind]++
  }
  END {
    if (!total["test"] && !total["suite"]) { print "Skipped: nothing."; exit }
    printf "Skipped: %d tests and %d suites (a suite skipped whole counts once), because:\n", total["test"], total["suite"]
    for (r in reasons) {
      line = ""
      if (count[r, "suite"]) line = count[r, "suite"] " suite" (count[r, "suite"] > 1 ? "s" : "")
      if (count[r, "test"]) line = line (line ? ", " : "") count[r, "test"] " test" (count[r, "test"] > 1 ? "s" : "")
      printf "  %-16s %s\n", line ":", r
    }
  }' "$log"
exit "$status"
