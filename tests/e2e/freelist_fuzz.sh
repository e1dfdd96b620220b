#!/usr/bin/env bash
# freelist_fuzz.sh - 'mapprof report' on databases whose freelist is damaged
# (tests/fuzz/mutate_freelist.py: loops, pages listed twice, pages out of
# the file, counts that do not add up, flipped bytes), where a long run's
# finding events are written as pages into the freelist's pages
# (db/pages/finding_pages.c).  Each case is reported twice, through SQLite's
# inserts (MAPPROF_PAGEWRITE=0) and as the report chooses; the second must
# end as the first: the same exit status, and the same file byte for byte
# (the writer refused the freelist and SQLite's path ran), or both files
# sound (integrity_check ok) with the same finding events (the damage left
# the freelist sound).  A damaged freelist never ends worse than SQLite's
# own path would leave it.
#
# FUZZ_CASES cases (default 120) from seed FUZZ_SEED (default 1); each
# failing case is kept in FUZZ_OUT (default BUILD/freelist_fuzz) with the
# line that replays it.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON' (apt-get install python3)"
m=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
cases=${FUZZ_CASES:-120}
first=${FUZZ_SEED:-1}
out=${FUZZ_OUT:-$MAPPROF_BUILD/freelist_fuzz}
t=$(tmpdir)

# The seed: 1 KiB pages (many trunks), reported once, its finding events
# deleted: a freelist of ~2,000 pages for the next report's events.
sqlite3 "$t/base.db" "PRAGMA page_size = 1024" ".read $MAPPROF_SRC/db/schema.sql" &&
	sqlite3 "$t/base.db" -cmd ".parameter set @iters 15000" ".read $MAPPROF_SRC/bench/gen_events.sql" >/dev/null ||
	fail "cannot make the seed database"
MAPPROF_PAGEWRITE=0 "$m" report -q --no-html --no-json "$t/base.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
events=$(q "$t/base.db" 'SELECT COUNT(*) FROM finding_event_raw')
[ "$events" -gt 65536 ] || fail "too few finding events for the pages ($events)"
q "$t/base.db" 'DELETE FROM finding_event_raw' >/dev/null
[ "$(q "$t/base.db" 'PRAGMA freelist_count')" -gt 1000 ] || fail "the seed has no freelist to damage"

# The undamaged seed: written as pages, the same rows as SQLite's inserts.
cp "$t/base.db" "$t/a.db"
cp "$t/base.db" "$t/b.db"
MAPPROF_PAGEWRITE=0 "$m" report -q --no-html --no-json "$t/a.db" 2>/dev/null || fail "report of the seed (SQLite)"
if command -v strace >/dev/null; then
	strace -f -qq -e trace=openat -o "$t/st" "$m" report -q --no-html --no-json "$t/b.db" 2>/dev/null ||
		fail "report of the seed (pages)"
	grep -q -- '-journal", O_WRONLY|O_CREAT|O_EXCL' "$t/st" || fail "the seed's finding events were not written as pages"
else
	echo "note: strace is missing: that the seed's rows went as pages is not checked"
	"$m" report -q --no-html --no-json "$t/b.db" 2>/dev/null || fail "report of the seed (pages)"
fi
rows() { sqlite3 -batch "$1" 'SELECT COUNT(*), SUM(rowid * 3 + finding * 7 + occurrence * 11 + seq * 13) FROM finding_event_raw' 2>&1; }
integrity() { sqlite3 -batch "$1" 'PRAGMA integrity_check' 2>&1 | head -n 20; }
assert_eq "$(rows "$t/b.db")" "$(rows "$t/a.db")" "the seed's finding events as pages"

fails=0 fell_back=0 pages=0 refused=0
for ((seed = first; seed < first + cases; seed++)); do
	what=$("$PYTHON" "$MAPPROF_SRC/tests/fuzz/mutate_freelist.py" "$t/base.db" "$seed" "$t/dmg.db") ||
		fail "mutate_freelist.py $seed"
	cp "$t/dmg.db" "$t/a.db"
	cp "$t/dmg.db" "$t/b.db"
	rm -f "$t"/[ab].db-journal
	ra=0 rb=0
	MAPPROF_PAGEWRITE=0 timeout 60 "$m" report -q --no-html --no-json "$t/a.db" >/dev/null 2>"$t/a.err" || ra=$?
	timeout 60 "$m" report -q --no-html --no-json "$t/b.db" >/dev/null 2>"$t/b.err" || rb=$?
	why=
	if [ "$ra" != "$rb" ]; then
		why="exit $rb, SQLite's path $ra"
	elif cmp -s "$t/a.db" "$t/b.db"; then
		fell_back=$((fell_back + 1))
		[ "$ra" = 0 ] || refused=$((refused + 1))
	elif [ "$(integrity "$t/a.db")" = ok ] && [ "$(integrity "$t/b.db")" = ok ] &&
		[ "$(rows "$t/a.db")" = "$(rows "$t/b.db")" ]; then
		pages=$((pages + 1))
	else
		why="a file unlike SQLite's path's: integrity '$(integrity "$t/b.db" | head -n 2 | tr '\n' ' ')', SQLite's path '$(integrity "$t/a.db" | head -n 2 | tr '\n' ' ')'"
	fi
	[ -e "$t/a.db-journal" ] || [ ! -e "$t/b.db-journal" ] || why="${why:+$why; }a journal left behind"
	if [ -n "$why" ]; then
		fails=$((fails + 1))
		mkdir -p "$out"
		cp "$t/dmg.db" "$out/case-$seed.db"
		echo "FAIL seed $seed ($what): $why"
		sed 's/^/    /' "$t/b.err"
		echo "    replay: FUZZ_SEED=$seed FUZZ_CASES=1 bash tests/e2e/freelist_fuzz.sh"
	fi
done
echo "$cases damaged freelists: $fell_back as SQLite's path byte for byte ($refused of them refused by SQLite too), $pages as pages, $fails failed"
[ "$fails" = 0 ] || fail "$fails of $cases damaged freelists did not end as SQLite's path"
echo "ok: every damaged freelist ends as SQLite's own path"
