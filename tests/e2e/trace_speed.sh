#!/usr/bin/env bash
# trace_speed.sh - 'mapprof trace' at scale (issue 27: 10 M events within
# 20 s) on a reported synthetic run of bench/gen_events.sh (200 k events):
#
# - CPU time (user + sys) of the trace, in both formats, at most 1.6 times
#   what sqlite3 takes to print the same events as text (SELECT * of
#   data_op_raw and kernel_raw): a yardstick measured in the same minute,
#   so that a loaded machine slows both.  Before the fix the JSON trace
#   took 2.5 times the yardstick and the .pftrace 2 times (putc and
#   fprintf per field, SQLite sorting the finding rows); now about 1.1.
#   Best of three runs each; not checked under sanitizers.
# - the finding rows are read in the order 'mapprof report' stored them
#   (time order) and sorted only when they are not: a database whose
#   finding_event_raw is stored finding by finding (an older report's
#   order) gives the same trace, byte for byte, in both formats, as do
#   standard output (always sorted) and a window.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
[ -x /usr/bin/time ] || skip "no /usr/bin/time (apt-get install time)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

iters=${TRACE_TEST_ITERS:-22222}
bash "$MAPPROF_SRC/bench/gen_events.sh" s.db "$iters" || fail "gen_events.sh $iters failed"
"$mapprof" report -q --no-json --no-html s.db 2>err || fail "report of s.db failed: $(cat err)"

# The same trace from finding rows stored in another order, to standard output, and in a window.
cp s.db shuffled.db || fail "cannot copy s.db"
q shuffled.db "CREATE TEMP TABLE x AS SELECT * FROM finding_event_raw ORDER BY finding, occurrence DESC;
	DELETE FROM finding_event_raw; INSERT INTO finding_event_raw SELECT * FROM x;"
[ "$(q s.db 'SELECT COUNT(*) FROM finding_event_raw')" -gt 1000 ] || fail "the synthetic run has no findings"
for fmt in json pftrace; do
	"$mapprof" trace -o "s.$fmt" s.db 2>err || fail "trace s.db ($fmt): $(cat err)"
	"$mapprof" trace -o "shuffled.$fmt" shuffled.db 2>err || fail "trace shuffled.db ($fmt): $(cat err)"
	cmp -s "s.$fmt" "shuffled.$fmt" || fail "$fmt: finding rows stored in another order give another trace"
	"$mapprof" trace --format "$fmt" -o - s.db >"stdout.$fmt" 2>err || fail "trace -o - ($fmt): $(cat err)"
	cmp -s "s.$fmt" "stdout.$fmt" || fail "$fmt: standard output (sorted rows) differs from the file"
	"$mapprof" trace --from 2ms --to 5ms -o "w.$fmt" s.db 2>err || fail "trace --from ($fmt): $(cat err)"
	"$mapprof" trace --from 2ms --to 5ms -o "ws.$fmt" shuffled.db 2>err || fail "trace --from ($fmt): $(cat err)"
	cmp -s "w.$fmt" "ws.$fmt" || fail "$fmt: a window of finding rows stored in another order differs"
done
grep -q '"ph":"s","id"' s.json || fail "the synthetic trace has no finding arrows"

if ! rss_checked; then
	echo "note: the CPU time is not checked under sanitizers"
	exit 0
fi
cpu() {  # cpu CMD...: the CPU seconds (user + sys) CMD takes, its output thrown away
	/usr/bin/time -f '%U %S' -o cpu.time "$@" >/dev/null 2>&1 || fail "$* failed"
	awk '{ printf "%.2f\n", $1 + $2 }' cpu.time
}
best() {  # best CMD...: the least of three runs' CPU seconds
	{ cpu "$@"; cpu "$@"; cpu "$@"; } | sort -n | head -n 1
}
dump=$(best sqlite3 s.db "SELECT * FROM data_op_raw; SELECT * FROM kernel_raw")
json=$(best "$mapprof" trace -o t.json s.db)
pftrace=$(best "$mapprof" trace -o t.pftrace s.db)
echo "trace of $((iters * 9)) events: JSON $json s, pftrace $pftrace s CPU; sqlite3 printing them: $dump s"
for f in "JSON $json" "pftrace $pftrace"; do
	set -- $f
	awk -v t="$2" -v d="$dump" 'BEGIN { exit !(t <= 1.6 * d) }' ||
		fail "the $1 trace took $2 s of CPU, more than 1.6 x the $dump s sqlite3 takes to print the events"
done
exit 0
