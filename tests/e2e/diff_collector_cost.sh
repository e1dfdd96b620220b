#!/usr/bin/env bash
# diff_collector_cost.sh - 'mapprof diff' is not fooled by what recording
# costs.  Each recording keeps the collector's own time on the program's
# threads (stats: collector_own_ns; measured, between 0 and the run's
# duration).  diff shows it beside the run time, measures the run time less
# it, and where the two recordings' collector times differ by more than the
# run time changed, says so (text and JSON) instead of calling the change
# the program's.  The collector's times are set by hand here (the same
# program recorded twice, the second said to have spent 90 % of its run in
# the collector): the program ran faster by that, not slower.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq (apt-get install jq)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
prog=$MAPPROF_BUILD/samples/round_trip
[ -x "$prog" ] || fail "no sample '$prog' (hint: make samples)"
for s in a b; do
	"$m" record -f -o "$t/$s.db" -- "$prog" >/dev/null 2>"$t/err" || fail "record: $(cat "$t/err")"
done
own=$(q "$t/a.db" "SELECT value FROM stats WHERE name = 'collector_own_ns'")
dur=$(q "$t/a.db" "SELECT end_ns FROM run_raw")
[ -n "$own" ] || fail "no collector_own_ns in the recording's stats"
[ "$own" -gt 0 ] && [ "$own" -lt "$dur" ] || fail "collector_own_ns $own is not between 0 and the run's duration $dur"

# Control: the same collector time on both sides: no note.
"$m" diff --json "$t/same.json" "$t/a.db" "$t/b.db" >"$t/same.txt" 2>"$t/err" || fail "diff: $(cat "$t/err")"
grep -q "collector's own time" "$t/same.txt" || fail "diff shows no collector's own time: $(cat "$t/same.txt")"
assert_eq "$(jq -r '.predicted.relative_error_wall_of' "$t/same.json")" program_ns "the run time the error is of"
q "$t/a.db" "UPDATE stats_raw SET value = 1000 WHERE name = 'collector_own_ns'"
q "$t/b.db" "UPDATE stats_raw SET value = 1000 WHERE name = 'collector_own_ns'"
"$m" diff --json "$t/same.json" "$t/a.db" "$t/b.db" >"$t/same.txt" 2>"$t/err" || fail "diff: $(cat "$t/err")"
assert_eq "$(jq -r '.collector_note' "$t/same.json")" null "the note with equal collector times"
grep -q "^note: the recordings' own cost" "$t/same.txt" && fail "a note with equal collector times: $(cat "$t/same.txt")"

# The after-recording's collector took 90 % of its run: the program itself ran faster.
q "$t/b.db" "UPDATE stats_raw SET value = (SELECT end_ns * 9 / 10 FROM run_raw) WHERE name = 'collector_own_ns'"
"$m" diff --json "$t/cost.json" "$t/a.db" "$t/b.db" >"$t/cost.txt" 2>"$t/err" || fail "diff: $(cat "$t/err")"
grep -q "^note: the recordings' own cost differs by more than the change" "$t/cost.txt" ||
	fail "no note on the collector's cost: $(cat "$t/cost.txt")"
grep -q "the program ran .* faster" "$t/cost.txt" || fail "the note does not say the program ran faster: $(cat "$t/cost.txt")"
jq -e '.collector_note | startswith("the recordings'"'"' own cost differs")' "$t/cost.json" >/dev/null ||
	fail "no collector_note in the JSON: $(jq .collector_note "$t/cost.json")"
[ "$(jq '.measured_savings.program_ns.median' "$t/cost.json")" -gt 0 ] || fail "the program's time less the collector's did not fall"

# A recording without the stat (older mapprof): the run time as it is, and no note.
q "$t/b.db" "DELETE FROM stats_raw WHERE name = 'collector_own_ns'"
"$m" diff --json "$t/old.json" "$t/a.db" "$t/b.db" >"$t/old.txt" 2>"$t/err" || fail "diff: $(cat "$t/err")"
assert_eq "$(jq -r '.predicted.relative_error_wall_of, .collector_note' "$t/old.json" | tr '\n' ' ')" "duration_ns null " \
	"without the stat on one side"
grep -q "collector's own time" "$t/old.txt" && fail "a collector's time shown where one side has none"
echo "ok: diff shows the collector's own time and says when it, not the program, changed the run time"
