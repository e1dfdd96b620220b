#!/usr/bin/env bash
# diff.sh - 'mapprof diff': samples/round_trip.c against a fixed copy whose
# added 'target data' region shifts every line below it.  The fix removes
# the device->host->device round trip of 'a' (and its repeated allocation);
# the host->device->host trip of 'b', two lines lower now, remains and is
# matched.  A database against itself: nothing removed, nothing new.
# Several runs a side: medians and intervals.  Errors: exit 2 and 3.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
dir=$(tmpdir)
cd "$dir"

# Same file name on both sides (a fix edits the file in place): two directories.
mkdir before after
cp "$MAPPROF_SRC/samples/round_trip.c" before/round_trip.c
awk '/for \(int i = 0; i < CALLS; i\+\+\)/ {
	print "\t/* The fix: a stays on the device across the calls. */"
	print "#pragma omp target data map(tofrom: a)"
} { print }' before/round_trip.c >after/round_trip.c
[ "$(wc -l <after/round_trip.c)" -eq $(($(wc -l <before/round_trip.c) + 2)) ] ||
	fail "the fixed copy was not made"
for side in before after; do
	ompcc -g -O1 "$side/round_trip.c" -o "$side/prog" || fail "cannot build $side"
	for i in 1 2 3; do
		"$mapprof" record -o "$side$i.db" -- "$side/prog" >/dev/null 2>rec.err ||
			fail "record $side $i: $(cat rec.err)"
	done
done

"$mapprof" diff --json d.json before1.db after1.db >sum.out 2>err.out ||
	fail "diff: $(cat err.out)"
cat sum.out
assert_eq "$(jq -r '.format' d.json)" mapprof-diff "format"
assert_eq "$(jq -r '[.removed[] | .kind + ":" + (.variable // "?")] | sort | join(",")' d.json)" \
	"repeated_alloc:a,round_trip:a" "removed findings"
assert_eq "$(jq '.new | length' d.json)" 0 "new findings"
assert_eq "$(jq -r '[.remaining[] | .before.kind + ":" + .before.variable + ":" + .match] | join(",")' d.json)" \
	"round_trip:b:exact" "remaining findings"
assert_eq "$(jq '.remaining[0].after.line - .remaining[0].before.line' d.json)" 2 "line shift of the remaining finding"
assert_eq "$(jq '.before.bytes.median - .after.bytes.median' d.json)" 12288 "bytes saved (3 KiB x 2 legs x 2 ... of a)"
[ "$(jq '.predicted.savings_ns.median' d.json)" -gt 0 ] || fail "no predicted savings"
assert_eq "$(jq '.predicted.findings' d.json)" 2 "predicted over removed findings"
for k in duration_ns transfer_ns alloc_ns busy_ns bytes; do
	jq -e ".measured_savings.$k | has(\"median\") and has(\"min\") and has(\"max\")" d.json >/dev/null ||
		fail "measured_savings.$k"
done
grep -q '^removed 2, remaining 1, new 0$' sum.out || fail "summary: $(cat sum.out)"
grep -q "^  = round_trip host_device_host of 'b' at round_trip.c:43 (now :45)" sum.out ||
	fail "summary names the shifted line: $(cat sum.out)"
echo "ok the fix removes the round trip of a, b's remains across a shift of 2 lines"

"$mapprof" diff --json self.json -q before1.db before1.db 2>err.out || fail "self diff: $(cat err.out)"
assert_eq "$(jq '[(.removed | length), (.new | length)] | join(",")' -r self.json)" "0,0" "self: removed, new"
assert_eq "$(jq '.remaining | length' self.json)" "$(jq '.before.findings' self.json)" "self: all remain"
echo "ok a database against itself: nothing removed, nothing new"

"$mapprof" diff --json many.json before1.db before2.db before3.db -- after1.db after2.db after3.db \
	>many.out 2>err.out || fail "diff of 3+3: $(cat err.out)"
assert_eq "$(jq '[.before.runs, .after.runs] | join(",")' -r many.json)" "3,3" "runs"
jq -e '.before.duration_ns | .min <= .median and .median <= .max' many.json >/dev/null ||
	fail "median within min..max"
jq -e '.measured_savings.busy_ns | .min <= .median and .median <= .max' many.json >/dev/null ||
	fail "measured interval"
assert_eq "$(jq '.removed | length' many.json)" 2 "removed with 3 runs a side"
grep -q 'interval' many.out || fail "summary shows no interval: $(cat many.out)"
echo "ok three runs a side: medians and intervals"

rc=0
"$mapprof" diff before1.db missing.db >/dev/null 2>err.out || rc=$?
assert_eq "$rc" 3 "missing database"
grep -q "mapprof: error: .*missing.db" err.out || fail "error names the database: $(cat err.out)"
for args in "before1.db" "before1.db after1.db after2.db" "-- after1.db" "before1.db --" "--bogus a b"; do
	rc=0
	# shellcheck disable=SC2086
	"$mapprof" diff $args >/dev/null 2>err.out || rc=$?
	assert_eq "$rc" 2 "usage: diff $args"
done
echo "ok errors: 3 for a missing database, 2 for usage"

# The same comparison as a section of AFTER's report.
"$mapprof" report -q --baseline before1.db --json r.json --html r.html after1.db 2>err.out ||
	fail "report --baseline: $(cat err.out)"
assert_eq "$(jq -r '.baseline.format' r.json)" mapprof-diff "report.json's baseline"
assert_eq "$(jq '[(.baseline.removed | length), (.baseline.remaining | length), (.baseline.new | length)] | join(",")' -r r.json)" \
	"2,1,0" "baseline: removed, remaining, new"
grep -q 'id="sec-baseline"' r.html && grep -q 'function renderBaseline' r.html || fail "report.html has no baseline section"
rc=0
"$mapprof" report --baseline before1.db after1.db after2.db >/dev/null 2>err.out || rc=$?
assert_eq "$rc" 2 "--baseline with several databases"
echo "ok report --baseline: report.json's baseline, report.html's section"
