#!/usr/bin/env bash
# record_wakeups.sh - while the program records nothing, 'mapprof record'
# sleeps: it looks at the ring of event buffers a few times a second, not
# every 16 ms, and its live expansion thread naps as long (each wake-up is
# CPU taken from the program's threads).  When the program then fills
# buffers faster than a sleeping record would look, the collector wakes it
# (a byte on record's socket) and every event is recorded.
#   - record's threads' voluntary context switches, read from /proc over
#     one second of the program's sleep: at most 20 (a look every 16 ms
#     and a nap of 32 ms were ~90 a second);
#   - a burst of 40000 updates through a ring of 8 buffers (8192 events
#     in flight) right after the quiet second: all 40000 in the database,
#     the run complete, the program's output its own.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
[ -d /proc/self/task ] || skip "no /proc to read record's threads from"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

compile_offload "$MAPPROF_SRC/tests/e2e/record_wakeups.c" quiet_burst -O1

# The voluntary context switches of process $1's threads, summed.
switches() {
	local n=0 t v
	for t in /proc/"$1"/task/*/status; do
		v=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t" 2>/dev/null) || continue
		n=$((n + ${v:-0}))
	done
	echo "$n"
}

MAPPROF_RING_CHUNKS=8 "$mapprof" record -o burst.db -- ./quiet_burst 3 40000 >out.txt 2>rec.err &
rec=$!
# The program's first region is recorded once "quiet" is out (its runtime has started).
for _ in $(seq 200); do
	grep -q quiet out.txt 2>/dev/null && break
	sleep 0.05
done
grep -q quiet out.txt || { kill "$rec" 2>/dev/null; fail "the program did not start ($(cat rec.err))"; }
sleep 0.5
before=$(switches "$rec")
sleep 1
after=$(switches "$rec")
rc=0
wait "$rec" || rc=$?
assert_eq "$rc" 0 "record's exit status ($(cat rec.err))"
quiet=$((after - before))
echo "record's threads: $quiet voluntary context switches in a second of the program's sleep"
[ "$quiet" -le 20 ] || fail "record woke $quiet times in a quiet second (want at most 20)"
assert_eq "$(tail -n 1 out.txt)" "a[0] = 1.0" "the program's output"
assert_eq "$(q burst.db "SELECT status FROM run")" complete "the run's status ($(cat rec.err))"
assert_eq "$(q burst.db "SELECT COUNT(*) FROM data_ops WHERE op = 'to_device' AND bytes = 64")" 40000 \
	"the burst's updates in the database"
echo "ok record_wakeups: $quiet wake-ups in a quiet second; a burst through 8 buffers recorded whole"
