#!/usr/bin/env bash
# Runs every test: the unit-test binaries in BUILD/tests/test_* and the
# end-to-end scripts tests/e2e/*.sh.  Each is one test case for the summary;
# the output of a failing one is shown.  Ends with 'N passed, N failed'.
set -u
B=${1:-build}
export MAPPROF_BUILD=$(cd "$B" && pwd)
export MAPPROF_SRC=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 failed=()
run_one() {
	local name=$1; shift
	local log; log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		pass=$((pass + 1)); echo "PASS $name"
	else
		fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name"; sed 's/^/    /' "$log"
	fi
	rm -f "$log"
}
for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$MAPPROF_SRC"/tests/e2e/*.sh "$MAPPROF_SRC"/tests/browser/*.sh; do
	[ -f "$t" ] || continue
	[ "$(basename "$t")" != lib.sh ] || continue
	run_one "e2e/$(basename "$t" .sh)" bash "$t"
done
echo
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
