#!/usr/bin/env bash
# Runs the command given (make test's `swift test`), showing its output as it comes, and ends with what was
# skipped and why: Swift Testing's own closing line counts skipped tests among those run and says nothing
# of the suites skipped whole (without ../shared/corpus or .venv-test, for example).
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Through progress.sh: a line every 30 s while a long compile or test prints nothing.
bash "$(dirname "$0")/progress.sh" "$@" | tee "$log"
status=${PIPESTATUS[0]}
sort_summary() { IFS= read -r header && printf '%s\n' "$header" && sort -k3; }
# Swift Testing marks each skip as: <symbol> Test|Suite <name> skipped: "<reason>" (a name may hold quotes;
# the tests of a suite skipped whole get their own lines too).
awk '
  match($0, / skipped: ".*"\.?$/) && ($2 == "Test" || $2 == "Suite") {
    kind = $2 == "Suite" ? "suite" : "test"
    reason = substr($0, RSTART + 11); sub(/"\.?$/, "", reason)
    count[reason, kind]++; reasons[reason] = 1; total[kind]++
  }
  END {
    if (!total["test"] && !total["suite"]) { print "Skipped: nothing."; exit }
    printf "Skipped: %d tests, %d of them in %d suites skipped whole, because:\n", total["test"], suiteTests(), total["suite"]
    for (r in reasons) {
      line = ""
      if (count[r, "suite"]) line = count[r, "suite"] " suite" (count[r, "suite"] > 1 ? "s" : "")
      if (count[r, "test"]) line = line (line ? ", " : "") count[r, "test"] " test" (count[r, "test"] > 1 ? "s" : "")
      printf "  %-17s %s\n", line ":", r
    }
  }
  function suiteTests(   r, n) { for (r in reasons) if (count[r, "suite"]) n += count[r, "test"]; return n + 0 }' "$log" | sort_summary
exit "$status"
