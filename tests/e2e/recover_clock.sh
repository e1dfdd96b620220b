#!/usr/bin/env bash
# recover_clock.sh - a spool timed with the CPU's timestamp counter converts
# to nanoseconds however early the recording ends (issue 23, item 7): record
# killed with SIGKILL mid-run, the spool recovered, and the events' times are
# ns since the run's start, within the time the run lasted, not raw counter
# ticks (which made '946 events in 2334.39 s' of a one-second run).  Also
# when record is killed right after the program's first events.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the timestamp counter clock is x86-64 only"
grep -qw tsc /proc/cpuinfo || skip "this CPU has no timestamp counter"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

# loop SECONDS: target regions for SECONDS.
compile_offload "$MAPPROF_SRC/tests/e2e/timed_loop.c" loop -O1 -DPAUSE_US=200

# killed_at NAME SECONDS: record (timestamp counter forced) killed after
# SECONDS after its first events reached the spool, its spool recovered into
# NAME.db; prints the last event's end in ns and how long record lived, ns.
killed_at() {
	local t0 t1 rec
	t0=$(date +%s%N)
	MAPPROF_CLOCK=tsc "$mapprof" record -o "$1.db" -- ./loop 2.5 >/dev/null 2>"$1.err" &
	rec=$!
	# The first buffer of events (98 KiB) in the spool, then SECONDS.
	for _ in $(seq 500); do
		[ "$(stat -c %s "$1.db-spool" 2>/dev/null || echo 0)" -gt 50000 ] && break
		sleep 0.01
	done
	sleep "$2"
	kill -9 "$rec"
	wait "$rec" 2>/dev/null
	t1=$(date +%s%N)
	sleep 0.3
	"$mapprof" recover "$1.db-spool" 2>"$1.rec" || { cat "$1.rec" >&2; fail "recover $1.db-spool"; }
	local n first last
	n=$(q "$1.db" "SELECT COUNT(*) FROM data_op_raw")
	[ "$n" -gt 0 ] || fail "$1: no event recovered"
	first=$(q "$1.db" "SELECT MIN(begin_ns) FROM (SELECT begin_ns FROM data_op_raw UNION ALL SELECT begin_ns FROM target_raw)")
	last=$(q "$1.db" "SELECT MAX(end) FROM (SELECT begin_ns + dur_ns AS end FROM data_op_raw UNION ALL SELECT begin_ns + dur_ns FROM target_raw)")
	# Between the run's start and record's death (plus a second of slack).
	[ "$first" -ge 0 ] || fail "$1: an event begins ${first} ns before the run"
	[ "$last" -le $((t1 - t0 + 1000000000)) ] ||
		fail "$1: the last event ends at $last ns, after record was killed ($((t1 - t0)) ns after it started): raw counter ticks?"
	assert_eq "$(q "$1.db" "SELECT start_ns IS NOT NULL FROM run")" 1 "$1: the run has a start"
	echo "$last $((t1 - t0))"
}

read -r last lived < <(killed_at mid 0.8) || exit 1
[ -n "$lived" ] || exit 1
[ "$last" -ge 300000000 ] || fail "mid: the last event ends at $last ns, within 0.3 s of a run killed after 0.8 s"
# The report's summary line, '<N> events in <T> ms' or '<T> s': no longer
# than record lived (a loaded machine stretches the run past a second;
# raw counter ticks would make it thousands of seconds).
"$mapprof" report --no-json --no-html mid.db >rep.err 2>&1 || true
took=$(sed -nE 's/.* events in ([0-9.]+) (ms|s)\b.*/\1 \2/p' rep.err | head -n 1)
[ -n "$took" ] || { cat rep.err >&2; fail "no '<N> events in <T>' line in the report of a killed run"; }
awk -v t="$took" -v lived="$lived" 'BEGIN { split(t, a, " "); ns = a[1] * (a[2] == "ms" ? 1e6 : 1e9);
	exit !(ns <= lived + 1e9) }' || fail "mid: the report says '$took' for a run record lived $lived ns of"
killed_at early 0 >/dev/null || exit 1
echo ok
