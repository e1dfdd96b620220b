#!/usr/bin/env bash
# report_store_pages.sh - a long run's finding events written as pages
# (db/pages/finding_pages.c) instead of SQLite's inserts, on a synthetic run of
# 1.8 M events (bench/gen_events.sh; 1.2 M finding events):
# - the same rows, the same record bytes and the same report as SQLite's
#   inserts (MAPPROF_PAGEWRITE=0), and SQLite's integrity check says ok;
# - re-reports take the freed pages of the last report's rows: the file
#   does not grow;
# - killed (SIGKILL) at its commit, the removal of its journal: the journal
#   is hot (the database's mode, whatever the umask), SQLite rolls the file
#   back (no finding event, integrity ok), also when it assumes 4 KiB
#   sectors (psow=0), and the next report stores the same findings;
# - a WAL database and a UTF-16 one, where these pages cannot be written,
#   get SQLite's inserts.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
command -v jq >/dev/null || skip "no jq (apt-get install jq)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
rows() { q "$1" 'SELECT COUNT(*) || ":" || SUM(rowid * 3 + finding * 7 + occurrence * 11 + seq * 13)
	|| ":" || group_concat(DISTINCT role || typeof(role)) FROM finding_event_raw'; }
payload() { q "$1" "SELECT SUM(payload) FROM dbstat WHERE name = 'finding_event_raw'"; }
findings() { jq -S '.findings, .summary' "$1"; }

"$MAPPROF_SRC/bench/gen_events.sh" "$t/sql.db" 200000 >/dev/null 2>"$t/err" || fail "gen_events: $(cat "$t/err")"
cp "$t/sql.db" "$t/pages.db"
cp "$t/sql.db" "$t/wal.db"
MAPPROF_PAGEWRITE=0 "$m" report -q --no-html --json "$t/sql.json" "$t/sql.db" 2>"$t/err" ||
	fail "report (SQLite's inserts): $(cat "$t/err")"
want=$(rows "$t/sql.db")
[ "${want%%:*}" -gt 100000 ] || fail "SQLite's inserts stored ${want%%:*} finding events"

# Pages: the journal of db/pages/finding_pages.c is the one made with O_EXCL.
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=openat -o "$t/st" "$m" report -q --no-html --json "$t/pages.json" "$t/pages.db" \
		2>"$t/err" || fail "report (pages): $(cat "$t/err")"
	grep -q -- '-journal", O_WRONLY|O_CREAT|O_EXCL' "$t/st" || fail "the finding events were not written as pages"
else
	echo "note: strace is missing: that the rows went as pages is not checked"
	"$m" report -q --no-html --json "$t/pages.json" "$t/pages.db" 2>"$t/err" || fail "report (pages): $(cat "$t/err")"
fi
assert_eq "$(rows "$t/pages.db")" "$want" "finding events as pages"
assert_eq "$(payload "$t/pages.db")" "$(payload "$t/sql.db")" "the finding events' record bytes"
assert_eq "$(q "$t/pages.db" 'PRAGMA integrity_check')" "ok" "integrity after the pages"
cmp -s <(findings "$t/sql.json") <(findings "$t/pages.json") || fail "the report differs with the pages"
[ ! -e "$t/pages.db-journal" ] || fail "a journal was left behind"

# Re-reports: the old rows' pages are taken again, the file stays its size.
"$m" report -q --no-html --json "$t/again.json" "$t/pages.db" 2>"$t/err" || fail "report again: $(cat "$t/err")"
size=$(q "$t/pages.db" 'PRAGMA page_count')
for i in 1 2; do
	"$m" report -q --no-html --json "$t/again.json" "$t/pages.db" 2>"$t/err" || fail "report again: $(cat "$t/err")"
done
assert_eq "$(q "$t/pages.db" 'PRAGMA page_count')" "$size" "pages after two more re-reports"
assert_eq "$(rows "$t/pages.db")" "$want" "finding events after re-reports"
assert_eq "$(q "$t/pages.db" 'PRAGMA integrity_check')" "ok" "integrity after re-reports"

# Killed when it removes its journal (its commit): the file rolls back.
if command -v strace >/dev/null 2>&1; then
	chmod 660 "$t/pages.db"
	(umask 022; strace -f -qq -o /dev/null -e trace=unlinkat -e inject=unlinkat:signal=KILL \
		"$m" report -q --no-html --json "$t/killed.json" "$t/pages.db"; exit $?) >/dev/null 2>&1 && fail "the report was not killed"
	[ -s "$t/pages.db-journal" ] || fail "no journal after the kill"
	assert_eq "$(stat -c %a "$t/pages.db-journal")" "660" "the journal's mode"
	assert_eq "$(sqlite3 -batch "file:$t/pages.db?psow=0" 'PRAGMA integrity_check')" "ok" \
		"integrity after the kill (rolled back, 4 KiB sectors)"
	[ ! -e "$t/pages.db-journal" ] || fail "SQLite did not play the journal back"
	assert_eq "$(q "$t/pages.db" 'SELECT COUNT(*) FROM finding_event_raw') $(q "$t/pages.db" 'SELECT COUNT(*) FROM finding_summary_raw')" \
		"0 0" "finding events and summary rows after the kill"
	"$m" report -q --no-html --json "$t/after.json" "$t/pages.db" 2>"$t/err" || fail "report after the kill: $(cat "$t/err")"
	assert_eq "$(rows "$t/pages.db")" "$want" "finding events after the kill's next report"
	cmp -s <(findings "$t/sql.json") <(findings "$t/after.json") || fail "the report after the kill differs"
	assert_eq "$(q "$t/pages.db" 'PRAGMA page_count')" "$size" "pages after the kill and a report"
	# 512-byte pages and no freelist: a journal shorter than the 4 KiB
	# sector SQLite assumes with psow=0, which must still be played back.
	sqlite3 "$t/small.db" "PRAGMA page_size = 512" ".read $MAPPROF_SRC/db/schema.sql" &&
		sqlite3 "$t/small.db" -cmd ".parameter set @iters 20000" ".read $MAPPROF_SRC/bench/gen_events.sql" >/dev/null ||
		fail "cannot make a database of 512-byte pages"
	(strace -f -qq -o /dev/null -e trace=unlinkat -e inject=unlinkat:signal=KILL \
		"$m" report -q --no-html --json "$t/killed.json" "$t/small.db"; exit $?) >/dev/null 2>&1 && fail "the report was not killed"
	[ -s "$t/small.db-journal" ] || fail "no journal after the kill (512-byte pages)"
	assert_eq "$(sqlite3 -batch "file:$t/small.db?psow=0" 'PRAGMA integrity_check; SELECT COUNT(*) FROM finding_event_raw' | tr '\n' ' ')" \
		"ok 0 " "512-byte pages after the kill (rolled back, 4 KiB sectors)"
else
	echo "note: strace is missing: the kill at the commit is not tried"
fi

# WAL: SQLite's inserts, the same rows.
q "$t/wal.db" 'PRAGMA journal_mode = WAL' >/dev/null
"$m" report -q --no-html --json "$t/wal.json" "$t/wal.db" 2>"$t/err" || fail "report (WAL): $(cat "$t/err")"
assert_eq "$(rows "$t/wal.db")" "$want" "finding events in a WAL database"
# UTF-16: the roles as text SQLite can read (SQLite's inserts).
rm -f "$t/u16.db"
sqlite3 "$t/u16.db" "PRAGMA encoding = 'UTF-16le'" ".read $MAPPROF_SRC/db/schema.sql" &&
	sqlite3 "$t/u16.db" -cmd ".parameter set @iters 20000" ".read $MAPPROF_SRC/bench/gen_events.sql" >/dev/null ||
	fail "cannot make a UTF-16 database"
"$m" report -q --no-html --json "$t/u16.json" "$t/u16.db" 2>"$t/err" || fail "report (UTF-16): $(cat "$t/err")"
assert_eq "$(q "$t/u16.db" "SELECT COUNT(*) > 65536, group_concat(DISTINCT role) FROM finding_event_raw")" \
	"1|send,return,transfer,alloc,delete" "the finding events of a UTF-16 database"
echo "ok: finding events as pages: the same rows as SQLite's inserts, freed pages reused, a kill rolled back"
