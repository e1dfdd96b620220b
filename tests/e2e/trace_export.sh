#!/usr/bin/env bash
# trace_export.sh - 'mapprof trace' (issue 16, "Timeline export"):
#
# - on a real recording (samples/round_trip, reported first): valid Trace
#   Event JSON (tests/trace/check_trace.py: ph/ts/pid everywhere, dur >= 0,
#   flow s/f pairs bound to slices, named processes and threads), one X
#   event per recorded event, bytes/variable/source in args, one arrow per
#   later occurrence of each finding; without a report: the events only,
#   and a hint; errors: exit 3, nothing written;
# - streaming: on the synthetic run of bench/gen_events.sh, peak RSS at
#   ITERS and 10 x ITERS iterations differs by less than 1.5x, and the
#   larger one is written within a time budget.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
check=$MAPPROF_SRC/tests/trace/check_trace.py
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v jq >/dev/null || skip "jq is not installed"
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON'"
[ -x /usr/bin/time ] || skip "no /usr/bin/time (apt-get install time)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

timeout 60 "$mapprof" record -o rt.db -- "$sample" >/dev/null 2>err || fail "record failed: $(cat err)"
# Before a report: events, no variables, no arrows, and a hint.
"$mapprof" trace rt.db -o bare.json 2>err || fail "trace failed: $(cat err)"
grep -q "^mapprof: hint: 'rt.db' holds no findings: run 'mapprof report rt.db' first" err || fail "no hint: $(cat err)"
out=$("$PYTHON" "$check" bare.json) || fail "bare.json: $out"
case $out in "X=25 "*"flows=0 "*) ;; *) fail "bare trace: $out" ;; esac

"$mapprof" report -q --no-html --json rt.json rt.db 2>err || fail "report failed: $(cat err)"
"$mapprof" trace rt.db 2>err || fail "trace failed: $(cat err)"
grep -q "^mapprof: wrote './trace.json': 25 events, 4 finding arrows$" err || fail "trace said: $(cat err)"
out=$("$PYTHON" "$check" trace.json) || fail "trace.json: $out"
# 25 events; flows: the findings' occurrences after the first (3, 1 and 3: 2 + 0 + 2).
want_flows=$(jq '[.findings[] | .occurrences - 1] | add' rt.json)
assert_eq "$out" "X=25 M=8 flows=$want_flows processes=device 0 (generic-64bit)" "trace summary"
assert_eq "$(jq -c '[.traceEvents[] | select(.ph == "X" and .cat == "transfer")][0] | [.name, .args.bytes, .args.variable, .args.source]' trace.json)" \
	'["to_device a",2048,"a","samples/round_trip.c:35"]' "a transfer's args"
assert_eq "$(jq '[.traceEvents[] | select(.ph == "X")] | length' trace.json)" \
	"$(q rt.db 'SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw)')" "X events"
# Standard output.
"$mapprof" trace -o - rt.db 2>/dev/null | jq -e '.traceEvents | length > 25' >/dev/null || fail "trace -o -"
# Errors: exit 3 and nothing written; usage: 2.
rc=0; "$mapprof" trace -o nope.json missing.db 2>err || rc=$?
assert_eq "$rc" 3 "trace of a missing database"
[ ! -e nope.json ] || fail "a failed trace wrote its output"
rc=0; "$mapprof" trace -o rt.db rt.db 2>err || rc=$?
assert_eq "$rc" 2 "trace onto the database"
rc=0; "$mapprof" trace 2>err || rc=$?
assert_eq "$rc" 2 "trace without a database"

# Streaming: bounded memory and a time budget on the synthetic run.
iters=${TRACE_TEST_ITERS:-20000}
measure() {  # measure ITERS: "SECONDS KIB" of 'mapprof trace' on a reported synthetic run
	bash "$MAPPROF_SRC/bench/gen_events.sh" "$dir/s$1.db" "$1" || fail "gen_events.sh $1 failed"
	"$mapprof" report -q --no-json --no-html "$dir/s$1.db" 2>/dev/null || fail "report of s$1.db failed"
	/usr/bin/time -f '%e %M' -o "$dir/time$1" "$mapprof" trace -o "$dir/s$1.json" "$dir/s$1.db" 2>/dev/null ||
		fail "trace of s$1.db failed"
	cat "$dir/time$1"
}
read -r t1 m1 < <(measure "$iters")
read -r t2 m2 < <(measure $((iters * 10)))
out=$("$PYTHON" "$check" "$dir/s$((iters * 10)).json") || fail "synthetic trace: $out"
echo "trace: $((iters * 9)) events: ${t1} s, ${m1} KiB; $((iters * 90)) events: ${t2} s, ${m2} KiB"
! rss_checked || awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(b < 1.5 * a) }' ||
	fail "peak RSS grows with the events: $m1 KiB at $iters iterations, $m2 KiB at $((iters * 10))"
# 1.8 M events: 120 s is ten times what it takes on a loaded 2-core VM.
awk -v t="$t2" 'BEGIN { exit !(t < 120) }' || fail "trace of $((iters * 90)) events took $t2 s (budget 120 s)"
exit 0
