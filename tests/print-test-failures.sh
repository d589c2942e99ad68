#!/usr/bin/env bash
# After a failed Maven test run: prints, last in the log where a CI excerpt shows it, each failed
# Java test's exception chain (the exception and every "Caused by", without stack frames) from
# the Surefire/Failsafe reports, then the job failures and warnings that
# target/test-logs/tests.log holds between the failed test's start and end.
#
#   tests/print-test-failures.sh [MODULE_DIR...]   (default: connector-java)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(connector-java)

for module in "${modules[@]}"; do
  dir="$repo/$module/target"
  for report in "$dir"/surefire-reports/*.txt "$dir"/failsafe-reports/*.txt; do
    [ -f "$report" ] || continue
    grep -q -E '<<< (ERROR|FAILURE)!' "$report" || continue
    echo "==== failed: $(basename "$report" .txt)"
    # The test line, the exception's first line, and each cause; frames and "... N more" dropped.
    grep -v -E '^[[:space:]]+(at |\.\.\. [0-9]+ more)' "$report" \
      | grep -E '<<< (ERROR|FAILURE)!|^[A-Za-z_$][A-Za-z0-9_$.]*(Exception|Error|Throwable)|^Caused by:|^[[:space:]]*Suppressed:' \
      | cut -c1-400 | head -60
  done
  log="$dir/test-logs/tests.log"
  [ -f "$log" ] || continue
  # Each failed test's own log lines, from its last run (TestLogMarkers marks start and end).
  for report in "$dir"/surefire-reports/*.txt "$dir"/failsafe-reports/*.txt; do
    [ -f "$report" ] || continue
    grep -E '<<< (ERROR|FAILURE)!' "$report" | grep -v '^Tests run:' | sed -E 's/ .*//' | while read -r test; do
      # Class.method, without a parameterized test's "(args)[n]" (the markers name the method).
      name=$(echo "$test" | sed -E 's/[([].*//' | awk -F. '{print $(NF-1) "." $NF}')
      echo "==== $module/target/test-logs/tests.log during $name: job failures and warnings"
      awk -v start="test started: $name" -v end="test ended: $name" \
        'index($0, start) {on = 1; buf = ""} on {buf = buf $0 "\n"} on && index($0, end) {on = 0}
         END {printf "%s", buf}' "$log" \
        | grep -E ' (ERROR|WARN) |switched from [A-Z_]+ to FAILED|^Caused by:|test (started|ended):' \
        | awk '!/^Caused by:/ || !seen[$0]++' | cut -c1-400 | tail -60
    done
  done
done
