#!/usr/bin/env bash
# ingest_pages.sh - the spool's expansion writes the event tables and
# delete_pair_raw as pages (db/pages/pagewrite.c) instead of through SQLite's
# inserts (issue 29, "events at SQLite's speed"); the database must be the
# one SQLite's inserts make (MAPPROF_PAGEWRITE=0), and whole:
#   - a real recording's spool (a sample and a four-thread loop: events out
#     of order), expanded both ways by 'mapprof recover': 'sqlite3 .dump'
#     identical, integrity_check and quick_check 'ok';
#   (a disk that fills up while the pages are written: recover_full_disk.sh,
#   the database left as it was);
#   - a run of a million events (launch_heavy) recorded: integrity_check ok,
#     every event there, every one of them written as pages (the stats row
#     record_expand_page_rows); its CPU time is printed (make bench measures it).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
collector=$MAPPROF_BUILD/libmapprof-collector.so
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

compile_offload "$MAPPROF_SRC/tests/e2e/threads_regions.c" threads -O1

check_ok() {  # DB WHAT
	assert_eq "$(sqlite3 "$1" 'PRAGMA integrity_check')" ok "integrity_check of $2"
	assert_eq "$(sqlite3 "$1" 'PRAGMA quick_check')" ok "quick_check of $2"
}

# NAME CMD...: the program's spool (kept: the collector loaded by hand), expanded both ways.
both_ways() {
	local name=$1
	shift
	OMP_TOOL_LIBRARIES=$collector MAPPROF_SPOOL=$name.spool MAPPROF_OUTPUT=$name-direct.db "$@" >/dev/null 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name: the program failed"; }
	[ -s "$name.spool" ] || fail "$name: no spool kept"
	cp "$name.spool" "$name-sql.spool"
	MAPPROF_PAGEWRITE=0 "$mapprof" recover -o "$name-sql.db" "$name-sql.spool" >/dev/null 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name: recover through SQLite failed"; }
	cp "$name.spool" "$name-pages.spool"
	"$mapprof" recover -o "$name-pages.db" "$name-pages.spool" >/dev/null 2>"$name.err" ||
		{ cat "$name.err" >&2; fail "$name: recover with pages failed"; }
	check_ok "$name-pages.db" "$name's pages"
	# Pages were written (the stat says how many rows), and nothing else differs.
	[ "$(sqlite3 "$name-pages.db" "SELECT value FROM stats WHERE name = 'record_expand_page_rows'")" -gt 10 ] ||
		fail "$name: recover wrote no rows as pages"
	[ -z "$(sqlite3 "$name-sql.db" "SELECT value FROM stats WHERE name = 'record_expand_page_rows'")" ] ||
		fail "$name: MAPPROF_PAGEWRITE=0 wrote rows as pages"
	sqlite3 "$name-sql.db" .dump >"$name-sql.dump"
	sqlite3 "$name-pages.db" .dump | grep -v "'record_expand_page_rows'" >"$name-pages.dump"
	[ "$(grep -c 'INSERT INTO data_op_raw' "$name-sql.dump")" -gt 10 ] || fail "$name: too few events to compare"
	diff -q "$name-sql.dump" "$name-pages.dump" >/dev/null ||
		{ diff "$name-sql.dump" "$name-pages.dump" | head -20 >&2; fail "$name: the dumps differ"; }
}

sample=$(ls "$MAPPROF_BUILD"/samples/* 2>/dev/null | head -1)
[ -x "$sample" ] || skip "no sample built (make samples)"
both_ways sample "$sample"
both_ways threads ./threads 400

# A million events: the pages whole.
lh=$MAPPROF_BUILD/bench/launch_heavy
[ -x "$lh" ] || lh=
if [ -n "$lh" ]; then
	"$mapprof" record -o big.db -- "$lh" 170000 >/dev/null 2>big.err || { cat big.err >&2; fail "record of launch_heavy"; }
	check_ok big.db "a million-event database"
	assert_eq "$(sqlite3 big.db 'SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw)
	                              + (SELECT COUNT(*) FROM target_raw)')" 1020000 "the events of launch_heavy 170000"
	assert_eq "$(sqlite3 big.db 'SELECT COUNT(*) FROM delete_pair_raw')" 170000 "the pairs of launch_heavy 170000"
	# Rows that came out of rowid order (a late chunk) go through SQLite: nearly all are pages.
	pr=$(sqlite3 big.db "SELECT value FROM stats WHERE name = 'record_expand_page_rows'")
	[ "${pr:-0}" -ge 1100000 ] || fail "record wrote ${pr:-no} rows of 1190000 as pages"
	cpu=$(sqlite3 big.db "SELECT value FROM stats WHERE name = 'record_expand_cpu_ns'")
	# Said, not judged: the time is make bench's ('expanding the spool after the program, per event').
	echo "the expansion took $((cpu / 1020000)) ns of CPU an event"
else
	echo "note: no build/bench/launch_heavy (make bench builds it): the million-event check skipped"
fi
echo "ok: pages make SQLite's database, row for row"
