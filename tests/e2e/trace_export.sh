#!/usr/bin/env bash
# trace_export.sh - 'mapprof trace' (issue 16, "Timeline export"):
#
# - on a real recording (samples/round_trip, reported first): valid Trace
#   Event JSON (tests/trace/check_trace.py: ph/ts/pid everywhere, dur >= 0,
#   flow s/f pairs bound to slices, named processes and threads), one X
#   event per recorded event, bytes/variable/source in args, one arrow per
#   later occurrence of each finding; without a report: the events only,
#   and a hint; errors: exit 3, nothing written;
# - issue 26, item 11: each finding's arrows are named by its kind, variable
#   and id ("round_trip of a (#1)", not "finding 1"); thread tracks by the
#   OS thread id and role ("initial thread (tid N)" for the process's own
#   thread, "OpenMP thread K (tid N)" for the hidden helpers that run
#   samples/nowait_threads' regions); samples/two_devices, which sends the
#   same a to both devices (no finding), gets the arrow from device 0's copy
#   to device 1's, and no "report first" hint once reported;
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
# Arrows named by kind and variable (issue 26, item 11).
assert_eq "$(jq -r '[.traceEvents[] | select(.ph == "s" and .cat == "finding") | .name] | unique | .[]' trace.json)" \
	"$(jq -r '[.findings[] | select(.occurrences > 1) | "\(.kind) of \(.variable.name) (#\(.id))"] | unique | .[]' rt.json)" \
	"finding arrows' names"
# Thread tracks: the OS thread id and the role.
pid=$(q rt.db 'SELECT pid FROM process')
assert_eq "$(jq -r '[.traceEvents[] | select(.name == "thread_name") | .args.name] | unique | .[]' trace.json)" \
	"initial thread (tid $pid): allocations
initial thread (tid $pid): kernels
initial thread (tid $pid): transfers" "round_trip's thread tracks"
nowait=$MAPPROF_BUILD/samples/nowait_threads
[ -x "$nowait" ] || fail "no sample '$nowait' (hint: make samples)"
timeout 60 "$mapprof" record -o nw.db -- "$nowait" >/dev/null 2>err || fail "record nowait_threads: $(cat err)"
"$mapprof" trace nw.db -o nw.json 2>err || fail "trace nw.db: $(cat err)"
want=$(q nw.db "SELECT t.thread, t.tid, t.tid = p.pid FROM threads t, process p ORDER BY t.thread" |
	awk -F'|' '{ for (l = 0; l < 3; l++) print ($3 ? "initial thread" : "OpenMP thread " $1) " (tid " $2 "): " \
		(l == 0 ? "allocations" : l == 1 ? "kernels" : "transfers") }' | sort)
assert_eq "$(jq -r '[.traceEvents[] | select(.name == "thread_name") | .args.name] | unique | .[]' nw.json | sort)" \
	"$want" "nowait_threads' thread tracks"
jq -r '.traceEvents[] | select(.name == "thread_name") | .args.name' nw.json | grep -q '^OpenMP thread' ||
	fail "nowait_threads: no OpenMP thread track"

# Two devices: the same content to each, one arrow between them.
two=$MAPPROF_BUILD/samples/two_devices
[ -x "$two" ] || fail "no sample '$two' (hint: make samples)"
timeout 60 "$mapprof" record -o td.db -- "$two" >/dev/null 2>err || fail "record two_devices: $(cat err)"
"$mapprof" report -q --no-html --no-json td.db 2>err || fail "report td.db: $(cat err)"
"$mapprof" trace td.db -o td.json 2>err || fail "trace td.db: $(cat err)"
grep -q "hint" err && fail "a reported run without findings got a hint: $(cat err)"
grep -q "^mapprof: wrote 'td.json': 14 events, 0 finding arrows, 1 same-content arrow between devices$" err ||
	fail "trace td.db said: $(cat err)"
out=$("$PYTHON" "$check" td.json) || fail "td.json: $out"
case $out in *" flows=1 "*) ;; *) fail "two_devices trace: $out" ;; esac
assert_eq "$(jq -c '[.traceEvents[] | select(.ph == "s" or .ph == "f") | [.ph, .name, .cat, .pid]]' td.json)" \
	'[["s","same content of a, to device 1","same_content",1],["f","same content of a, to device 1","same_content",2]]' \
	"two_devices' arrow"

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
