#!/usr/bin/env bash
# repeat.sh - several recordings of one program, one prediction with its
# interval (report/compare/repeat.h): 'mapprof run --repeat 3' records three
# databases and reports them together; 'mapprof report --same-program'
# gives the same combination; every finding of the first recording is
# found in the others by fingerprint, its savings a median within min..max;
# the summary, report.json and report.html carry it.  Usage errors: 2.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
dir=$(tmpdir)
cd "$dir"

cat >prog.c <<'C'
#include <stdio.h>
#define N 8192
static double a[N];
int main(void)
{
	for (int k = 0; k < 8; k++) {
#pragma omp target map(tofrom: a)
		for (int i = 0; i < N; i++)
			a[i] += 1;
	}
	printf("%g\n", a[0]);
	return 0;
}
C
compile_offload prog.c prog -g -O1

"$mapprof" run --repeat 3 -o rep --json rep.json --html rep.html -- ./prog >run.out 2>run.err ||
	fail "run --repeat: $(cat run.err)"
for f in rep.mapprof.db rep.mapprof.2.db rep.mapprof.3.db; do
	[ -f "$f" ] || fail "run --repeat 3 did not record $f: $(ls)"
done
assert_eq "$(jq '.repeat.runs' rep.json)" 3 "recordings combined"
assert_eq "$(jq -r '.repeat.databases | join(",")' rep.json)" "rep.mapprof.db,rep.mapprof.2.db,rep.mapprof.3.db" "databases"
n=$(jq '.findings | length' rep.json)
[ "$n" -gt 0 ] || fail "no findings"
assert_eq "$(jq '.repeat.findings | length' rep.json)" "$n" "a combination per finding"
assert_eq "$(jq '[.repeat.findings[] | select(.runs == 3)] | length' rep.json)" "$n" "each finding found in all 3 by fingerprint"
assert_eq "$(jq -r '[.findings[].fingerprint] == [.repeat.findings[].fingerprint]' rep.json)" true "fingerprints in order"
jq -e '[.repeat.savings_ns, .repeat.predicted_speedup, .repeat.findings[].savings_ns][] |
	.min <= .median and .median <= .max and .spread_pct >= 0' rep.json >/dev/null ||
	fail "a median outside its interval: $(jq -c .repeat rep.json)"
grep -q '^over 3 recordings of the same program' run.out || fail "summary: $(cat run.out)"
grep -q '^  estimated savings  .* \[.* \.\. .*\] (spread +-' run.out || fail "summary's interval: $(cat run.out)"
grep -q '"repeat"' rep.html || fail "report.html does not carry the combination"
echo "ok run --repeat 3: three recordings, medians with intervals"

"$mapprof" report --same-program rep.mapprof.db rep.mapprof.2.db rep.mapprof.3.db --json same.json \
	--no-html -q 2>err.out || fail "report --same-program: $(cat err.out)"
assert_eq "$(jq -c '.repeat.savings_ns' same.json)" "$(jq -c '.repeat.savings_ns' rep.json)" "the same combination"
# Without --same-program, several databases are processes of one command: no 'repeat'.
"$mapprof" report rep.mapprof.db rep.mapprof.2.db --json procs.json --no-html -q 2>err.out ||
	fail "report of two databases: $(cat err.out)"
assert_eq "$(jq 'has("repeat")' procs.json)" false "processes are not recordings"
echo "ok report --same-program"

for args in "--same-program rep.mapprof.db" "--same-program --baseline rep.mapprof.db rep.mapprof.2.db rep.mapprof.3.db"; do
	rc=0
	# shellcheck disable=SC2086
	"$mapprof" report $args >/dev/null 2>err.out || rc=$?
	assert_eq "$rc" 2 "usage: report $args"
done
for n in 0 x -1; do
	rc=0
	"$mapprof" run --repeat "$n" -- ./prog >/dev/null 2>err.out || rc=$?
	assert_eq "$rc" 2 "usage: run --repeat $n"
done
rc=0
"$mapprof" report --same-program rep.mapprof.db missing.db -q --no-html --no-json >/dev/null 2>err.out || rc=$?
assert_eq "$rc" 3 "a missing recording"
grep -q "mapprof: error: .*missing.db" err.out || fail "error names the database: $(cat err.out)"
echo "ok errors"

# A numbered recording that exists is refused before the first run, not
# after two: nothing is recorded, the existing file is untouched.
rm -f again.mapprof*.db
echo keep >again.mapprof.3.db
rc=0
"$mapprof" run --repeat 3 -o again -- ./prog >/dev/null 2>err.out || rc=$?
assert_eq "$rc" 3 "run --repeat over an existing numbered database"
grep -q "error: 'again.mapprof.3.db' already exists (use --force" err.out ||
	fail "the error names the database: $(cat err.out)"
[ ! -e again.mapprof.db ] && [ ! -e again.mapprof.2.db ] ||
	fail "recordings were made before the refusal: $(ls again.mapprof*)"
assert_eq "$(cat again.mapprof.3.db)" keep "the existing database untouched"
"$mapprof" run -f --repeat 3 -o again -q --no-html --no-json -- ./prog >/dev/null 2>err.out ||
	fail "run -f --repeat 3 over an existing numbered database: $(cat err.out)"
[ -s again.mapprof.3.db ] && [ "$(head -c 6 again.mapprof.3.db)" = "SQLite" ] ||
	fail "--force did not replace the numbered database"
echo "ok an existing numbered recording is refused before the first run (--force replaces it)"
