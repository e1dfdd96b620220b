#!/usr/bin/env bash
# record_early.sh - 'mapprof record' expands the spool as soon as the
# program's collector says it finished (RING_ENDED_FINISHED: it writes nothing
# more), while the process is still ending (issue 29: the expansion after
# the program), and only then:
#   - a program that ends slowly (a destructor sleeping 300 ms after the
#     exit handlers): stats row record_expand_early = 1, every event there
#     (4 data operations and a kernel a region), the rows 'mapprof recover'
#     makes of the very same spool, integrity_check ok, and the run's wall
#     time still the program's whole run (>= the 300 ms of its end);
#   - the same with a ring of 2 chunks and 2,000 regions (record's passes
#     over the ring meet the expansion's last one), and with none (the
#     collector writes every buffer itself; the ring's header still says);
#   - killed (SIGKILL) and _exit(3): no such word, record_expand_early = 0,
#     every event still there, the exit status the program's;
#   - SIGTERM to record once the program is gone, while it expands (1.8 M
#     events through SQLite's inserts: seconds): record ends by it (143), as
#     before the thread, not forwarding it to the reaped pid, and the spool
#     it leaves gives every event to 'mapprof recover';
#   - a child forked halfway without the atfork handlers (_Fork()) that
#     calls exit(): its collector is a copy of its parent's, and its finish
#     is not the parent's (every event of the parent's second half there).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

compile_offload "$MAPPROF_SRC/tests/e2e/slow_end.c" slow_end -O1

q1() {  # DB SQL
	sqlite3 "$1" "$2"
}


# NAME REGIONS HOW STATUS EARLY: record (the spool kept), check, recover the same spool, compare.
run() {
	local name=$1 regions=$2 how=$3 want_status=$4 want_early=$5 rc ops kernels early
	rm -f "$name.db" "$name.spool" "$name-r.db"
	MAPPROF_KEEP_SPOOL=$PWD/$name.spool "$mapprof" record -o "$name.db" -- ./slow_end "$regions" "$how" \
		>"$name.out" 2>"$name.err"
	rc=$?
	[ "$rc" = "$want_status" ] || { cat "$name.err" >&2; fail "$name: record exited $rc, not $want_status"; }
	[ "$(cat "$name.out")" = "$(( (4095 * 4096 / 2) + regions * 4096 ))" ] || fail "$name: the program's output changed"
	assert_eq "$(q1 "$name.db" 'PRAGMA integrity_check')" ok "integrity_check of $name"
	ops=$(q1 "$name.db" 'SELECT COUNT(*) FROM data_op_raw')
	kernels=$(q1 "$name.db" 'SELECT COUNT(*) FROM kernel_raw')
	assert_eq "$ops" "$((4 * regions))" "$name: data operations"
	assert_eq "$kernels" "$regions" "$name: kernels"
	early=$(q1 "$name.db" "SELECT value FROM stats WHERE name = 'record_expand_early'")
	assert_eq "$early" "$want_early" "$name: record_expand_early"
	[ -s "$name.spool" ] || fail "$name: no spool kept (MAPPROF_KEEP_SPOOL)"
	"$mapprof" recover -o "$name-r.db" "$name.spool" >/dev/null 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name: recover failed"; }
	[ -z "$(q1 "$name-r.db" "SELECT value FROM stats WHERE name = 'record_expand_early'")" ] ||
		fail "$name: recover says record expanded early"
	db_event_dump "$name.db" >"$name.dump"
	db_event_dump "$name-r.db" >"$name-r.dump"
	diff -q "$name-r.dump" "$name.dump" >/dev/null ||
		{ diff "$name-r.dump" "$name.dump" | head -20 >&2; fail "$name: record's database is not recover's"; }
	echo "ok $name: $ops data operations, $kernels kernels, expanded early: $early"
}

run slow 20 slow 0 1
wall=$(q1 slow.db 'SELECT wall_ns FROM run')
[ "$wall" -ge 300000000 ] || fail "slow: the run's wall time ($wall ns) leaves out the program's slow end"
assert_eq "$(q1 slow.db 'SELECT status FROM run')" complete "slow: the run's status"
assert_eq "$(q1 slow.db 'SELECT exit_status FROM run')" 0 "slow: the exit status"
MAPPROF_RING_CHUNKS=2 run ring2 2000 slow 0 1
MAPPROF_RING_CHUNKS=0 run ring0 20 slow 0 1   # no chunks: the collector writes its buffers itself
run kill 20 kill 137 0
assert_eq "$(q1 kill.db 'SELECT exit_signal FROM run')" 9 "kill: the signal"
run exit 20 _exit 3 0
run fork 20 fork 0 1

# SIGTERM while record expands, the program gone.
compile_offload "$MAPPROF_SRC/bench/launch_heavy.c" heavy -O2
MAPPROF_PAGEWRITE=0 MAPPROF_LIVE_EXPAND=0 "$mapprof" record -o term.db -- ./heavy 300000 >/dev/null 2>term.err &
rec=$!
kid= i=0
while [ -z "$kid" ] && [ $((i++)) -lt 3000 ]; do
	read -r kid _ <"/proc/$rec/task/$rec/children" 2>/dev/null
	[ -n "$kid" ] || sleep 0.01
done
[ -n "$kid" ] || { kill -KILL "$rec"; wait "$rec"; fail "term: the program never started"; }
while [ -e "/proc/$kid" ]; do sleep 0.01; done   # gone, reaped: record expands now
kill -TERM "$rec"
wait "$rec"
rc=$?
[ "$rc" = 143 ] || { cat term.err >&2; fail "term: record went on after SIGTERM (exit $rc, not 143)"; }
[ -s term.db-spool ] || fail "term: no spool left for 'mapprof recover'"
"$mapprof" recover term.db-spool >/dev/null 2>term.err || { cat term.err >&2; fail "term: recover failed"; }
assert_eq "$(q1 term.db 'SELECT COUNT(*) FROM data_op_raw')" 1200000 "term: data operations recovered"
echo "ok term: record ended by SIGTERM while it expanded; recover found every event"
echo "ok: the spool expanded while the program ended, once its collector had finished; killed and _exit as before"
