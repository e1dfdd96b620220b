#!/usr/bin/env bash
# Runs every test: the unit-test binaries in BUILD/tests/test_* and the
# end-to-end scripts tests/e2e/*.sh, tests/browser/*.sh and tests/checks/*.sh (but lib.sh and
# lib_*.sh, which the tests source).  Each is one test
# case for the summary; the output of a failing one is shown.
#
# A test that cannot run here exits 77 after printing 'SKIP: REASON'; it is
# shown as SKIP with that reason and counted apart, never as passed.  With
# CI=true a skip is a failure: 'make check' installs every test's
# dependencies, so a skip there means an install step is missing.
# Ends with 'N passed, N failed, N skipped'; exits 1 if any test failed.
set -u
B=${1:-build}
export MAPPROF_BUILD=$(cd "$B" && pwd)
export MAPPROF_SRC=$(cd "$(dirname "$0")/.." && pwd)
# A build with SANITIZE=address,undefined (docs/testing.md): every report
# fails the test it came from, whatever that test made of the exit status.
# ASan and LSan write theirs to files in san_dir (one per process), so even
# a report from a command whose stderr the test discarded is seen; UBSan's
# too, except in a gcc-built mapprof, where libubsan beside libasan ignores
# log_path and writes to stderr: halt_on_error makes it exit 1 and the test's
# output is searched for it as well.  Unsanitized binaries ignore all this.
san_dir=$(mktemp -d "${TMPDIR:-/tmp}/mapprof-san.XXXXXX") || exit 1
trap 'rm -rf "$san_dir"' EXIT
export ASAN_OPTIONS="detect_leaks=1:log_path=$san_dir/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$san_dir/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
san_pattern='runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer'
pass=0 fail=0 skip=0 failed=() skipped=()
run_one() {
	local name=$1 rc=0 log reason f
	shift
	log=$(mktemp)
	"$@" >"$log" 2>&1 || rc=$?
	for f in "$san_dir"/*; do
		[ -f "$f" ] || continue
		{ echo "sanitizer report ($(basename "$f")):"; cat "$f"; } >>"$log"
		rm -f "$f"
		rc=99
	done
	# (a failing test may quote one: only a passing or skipped one is searched)
	if { [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; } && grep -qE "$san_pattern" "$log"; then
		echo "a sanitizer report in the test's output" >>"$log"
		rc=99
	fi
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $name"
	elif [ "$rc" -eq 77 ]; then
		reason=$(sed -n 's/^SKIP: *//p' "$log" | tail -n 1)
		reason=${reason:-the test gave no reason}
		if [ "${CI:-}" = true ]; then
			fail=$((fail + 1)); failed+=("$name")
			echo "FAIL $name: skipped under CI=true ($reason)"
		else
			skip=$((skip + 1)); skipped+=("$name")
			echo "SKIP $name: $reason"
		fi
	else
		fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$log"
	fi
	rm -f "$log"
}
for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$MAPPROF_SRC"/tests/e2e/*.sh "$MAPPROF_SRC"/tests/browser/*.sh "$MAPPROF_SRC"/tests/checks/*.sh; do
	[ -f "$t" ] || continue
	case "$(basename "$t")" in lib.sh | lib_*.sh) continue ;; esac  # sourced by the tests, not tests
	case "$t" in */tests/checks/*) group=checks ;; *) group=e2e ;; esac
	run_one "$group/$(basename "$t" .sh)" bash "$t"
done
echo
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
[ ${#skipped[@]} -eq 0 ] || echo "skipped: ${skipped[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
