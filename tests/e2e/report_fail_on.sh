#!/usr/bin/env bash
# report_fail_on.sh - '--fail-on KIND[:THRESHOLD]' (issue 16, "Gate CI"):
# exit 1 and one 'mapprof: --fail-on SPEC: why' line per threshold the
# findings are over, 0 when under; 2 for a bad spec; in 'run', the
# program's own non-zero status wins.  The round_trip sample's findings:
# 2 round_trip findings (4 occurrences), 1 repeated_alloc (3), no others.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"
timeout 60 "$mapprof" record -o rt.db -- "$sample" >/dev/null 2>err || fail "record failed: $(cat err)"

# gate WANT_STATUS WANT_STDERR_REGEX ARGS...: report rt.db with ARGS.
gate() {
	local want=$1 re=$2 rc=0
	shift 2
	"$mapprof" report -q --no-json --no-html "$@" rt.db >out 2>err || rc=$?
	[ "$rc" = "$want" ] || fail "report $*: exit $rc, want $want; stderr: $(cat err)"
	if [ -n "$re" ]; then
		grep -Eq "$re" err || fail "report $*: stderr does not match '$re': $(cat err)"
	else
		! grep -q -- '--fail-on' err || fail "report $*: unexpected: $(cat err)"
	fi
}

gate 0 '' 
gate 1 '^mapprof: --fail-on any: 7 occurrences$' --fail-on any
gate 1 '^mapprof: --fail-on round_trip: 4 round_trip occurrences$' --fail-on round_trip
gate 0 '' --fail-on duplicate_transfer --fail-on unused_alloc --fail-on unused_transfer
gate 1 '^mapprof: --fail-on repeated_alloc:2: 3 repeated_alloc occurrences$' --fail-on repeated_alloc:2
gate 0 '' --fail-on repeated_alloc:3 --fail-on any:7
gate 1 '^mapprof: --fail-on savings:1ns: predicted savings [0-9.]+ (ns|us|ms)$' --fail-on savings:1ns
gate 0 '' --fail-on savings:10s --fail-on savings:100%
gate 1 '^mapprof: --fail-on savings:0%: predicted savings [0-9.e-]+% of the run$' --fail-on savings:0%
gate 1 '^mapprof: --fail-on savings: predicted savings' --fail-on savings
# Several: each that trips is said, any one fails.
gate 1 'round_trip:1: 4 round_trip' --fail-on duplicate_transfer --fail-on round_trip:1 --fail-on any:100
[ "$(grep -c -- '--fail-on' err)" = 1 ] || fail "only the tripped threshold is said: $(cat err)"
# The threshold is checked against the same numbers as report.json.
"$mapprof" report -q --no-html --json rt.json rt.db 2>/dev/null || fail "report --json failed"
pct=$(jq -r '.summary.savings_ns * 100 / .summary.duration_ns' rt.json)
over=$(awk -v p="$pct" 'BEGIN { printf "%.6f", p * 0.9 }')
under=$(awk -v p="$pct" 'BEGIN { printf "%.6f", p * 1.1 }')
gate 1 "savings:$over%" --fail-on "savings:$over%"
gate 0 '' --fail-on "savings:$under%"

# Bad specs: usage errors, before anything is analysed.
for bad in nothing round_trip:x savings:5 savings:5parsecs any:1.5 savings:101% '' round_trip:-1; do
	rc=0
	"$mapprof" report -q --no-json --no-html --fail-on "$bad" rt.db >out 2>err || rc=$?
	[ "$rc" = 2 ] || fail "--fail-on '$bad': exit $rc, want 2"
	grep -q "^mapprof: error: --fail-on '$bad'" err || fail "--fail-on '$bad': $(cat err)"
done

# mapprof run: the gate, then the program's own status wins.
rc=0; timeout 60 "$mapprof" run -q -o r1 --no-json --no-html --fail-on round_trip -- "$sample" >/dev/null 2>err || rc=$?
assert_eq "$rc" 1 "run --fail-on round_trip"
grep -q '^mapprof: --fail-on round_trip: 4 round_trip occurrences$' err || fail "run: $(cat err)"
rc=0; timeout 60 "$mapprof" run -q -o r2 --no-json --no-html --fail-on savings:100% -- "$sample" >/dev/null 2>err || rc=$?
assert_eq "$rc" 0 "run --fail-on savings:100%"
cat >fails.c <<'C'
#define N 1024
static double a[N];
int main(void)
{
	for (int k = 0; k < 3; k++) {
#pragma omp target map(tofrom: a[0:N])
		for (int i = 0; i < N; i++)
			a[i] += 0;
	}
	return 7;
}
C
compile_offload fails.c fails -g -O1
rc=0; timeout 60 "$mapprof" run -q -o r3 --no-json --no-html --fail-on any -- ./fails >/dev/null 2>err || rc=$?
assert_eq "$rc" 7 "run: the program's own status over --fail-on"
grep -q -- '--fail-on any' err || fail "run: the tripped threshold is still said: $(cat err)"
rc=0; "$mapprof" run -q -o r4 --fail-on bogus -- ./fails >/dev/null 2>err || rc=$?
assert_eq "$rc" 2 "run with a bad --fail-on"
[ ! -e r4.mapprof.db ] || fail "run with a bad --fail-on ran the program"
exit 0
