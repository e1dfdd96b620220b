#!/usr/bin/env bash
# ingest_live.sh - 'mapprof record' expands the spool while the program runs
# (issue 29: "done while the program runs on the drain's otherwise idle
# time"; db/ingest/ingest.c's live expansion): the event rows go to pages as the
# frames land, their times as written, converted in place at the end.  The
# database must be the one 'mapprof recover' makes of the very same spool
# (kept with MAPPROF_KEEP_SPOOL), and whole:
#   - a sample, a four-thread loop (chunks out of order; also with a small
#     ring), a million-event loop (bench/launch_heavy.c), with timestamp
#     counter ticks where the CPU has them (MAPPROF_CLOCK=tsc: the times'
#     conversion in place): 'sqlite3 .dump' identical but for what only record knows
#     (the run's end, the process's exit, the program's and the expansion's
#     times, the sources' hashes), integrity_check ok, and the live path
#     taken for the million events (stats row record_expand_live_rows > 0;
#     MAPPROF_LIVE_EXPAND=eager: at the program's priority);
#   - MAPPROF_LIVE_EXPAND=0: no live expansion, the same rows;
#   - record killed while the live expansion wrote pages past the file's
#     end: 'mapprof recover' expands the spool into that file, whole.
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

compile_offload "$MAPPROF_SRC/tests/e2e/threads_regions.c" threads -O1
compile_offload "$MAPPROF_SRC/bench/launch_heavy.c" heavy -O2

stat_of() {  # DB NAME
	sqlite3 "$1" "SELECT value FROM stats WHERE name = '$2'"
}


# NAME LIVE_MIN CMD...: record (the spool kept), recover the same spool, compare.
same() {
	local name=$1 min=$2 live
	shift 2
	rm -f "$name.db" "$name.spool" "$name-r.db"
	MAPPROF_KEEP_SPOOL=$PWD/$name.spool "$mapprof" record -o "$name.db" -- "$@" >/dev/null 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name: record failed"; }
	[ -s "$name.spool" ] || fail "$name: no spool kept (MAPPROF_KEEP_SPOOL)"
	"$mapprof" recover -o "$name-r.db" "$name.spool" >/dev/null 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name: recover failed"; }
	assert_eq "$(sqlite3 "$name.db" 'PRAGMA integrity_check')" ok "integrity_check of $name"
	live=$(stat_of "$name.db" record_expand_live_rows)
	if [ "$min" = off ]; then
		[ -z "$live" ] || fail "$name: a live expansion with MAPPROF_LIVE_EXPAND=0 ($live rows)"
	elif [ "$min" = any ]; then
		:   # used, or fallen back to the expansion after the program: the rows are what matter
	else
		[ -n "$live" ] || fail "$name: the live expansion was not used"
		[ "$live" -ge "$min" ] || fail "$name: the live expansion wrote $live rows (at least $min expected)"
	fi
	[ -z "$(stat_of "$name-r.db" record_expand_live_rows)" ] || fail "$name: recover says it expanded live"
	db_event_dump "$name.db" >"$name.dump"
	db_event_dump "$name-r.db" >"$name-r.dump"
	[ "$(grep -c 'INSERT INTO data_op_raw' "$name.dump")" -gt 10 ] || fail "$name: too few events to compare"
	diff -q "$name-r.dump" "$name.dump" >/dev/null ||
		{ diff "$name-r.dump" "$name.dump" | head -20 >&2; fail "$name: record's database is not recover's"; }
	echo "$name: the same rows (${live:-no} rows expanded live)"
}

sample=$MAPPROF_BUILD/samples/jacobi_like
[ -x "$sample" ] || skip "no sample built (make samples)"
same sample 0 "$sample"
# At the program's priority (by default the thread takes idle time only:
# on a busy machine it may get none, and everything is expanded after).
export MAPPROF_LIVE_EXPAND=eager
# With the counter, the times' conversion in place; without, times are ns already.
clock=monotonic
grep -qw tsc /proc/cpuinfo && clock=tsc
# Threads: a chunk overtaken by one further on than the live expansion
# waited makes record fall back (the same rows), which timing decides.
same threads any ./threads 6000
MAPPROF_CLOCK=$clock MAPPROF_RING_CHUNKS=4 same threads-ring4 any ./threads 8000
MAPPROF_CLOCK=$clock same heavy 1 ./heavy 170000
MAPPROF_LIVE_EXPAND=0 same heavy-off off ./heavy 20000
unset MAPPROF_LIVE_EXPAND

# record killed while the program runs: its live pages are past the file's
# end (the header does not count them); recover drops them and expands.
compile_offload "$MAPPROF_SRC/tests/e2e/timed_loop.c" loop -O1 -DPAUSE_US=10 -DBATCH=16
MAPPROF_RING_CHUNKS=4 "$mapprof" record -o dead.db -- ./loop 2 >/dev/null 2>dead.err &
rec=$!
for _ in $(seq 100); do [ -s dead.db-spool ] && break; sleep 0.05; done
sleep 0.8
kill -0 "$rec" 2>/dev/null || fail "record ended before the test could kill it"
kill -9 "$rec"
wait "$rec" 2>/dev/null
sleep 1.3   # the program stops recording once record is gone; let it end
pages=$(sqlite3 dead.db 'PRAGMA page_count')
psize=$(sqlite3 dead.db 'PRAGMA page_size')
size=$(stat -c %s dead.db)
[ "$size" -gt $((pages * psize)) ] || echo "note: record was killed before its live expansion wrote a page"
"$mapprof" recover dead.db-spool >/dev/null 2>r.err || { cat r.err >&2; fail "recover after record was killed"; }
assert_eq "$(sqlite3 dead.db 'PRAGMA integrity_check')" ok "integrity_check after recover"
n=$(sqlite3 dead.db 'SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw) + (SELECT COUNT(*) FROM target_raw)')
[ "$n" -gt 1000 ] || fail "recover after record was killed kept $n events"
echo "ok: record's live expansion makes recover's database, row for row"
