#!/usr/bin/env bash
# report_store_pages.sh - a long run's finding events written as pages
# (db/finding_pages.c) instead of SQLite's inserts, on a synthetic run of
# 1.8 M events (bench/gen_events.sh; 1.2 M finding events):
# - the same rows, the same record bytes and the same report as SQLite's
#   inserts (MAPPROF_PAGEWRITE=0), and SQLite's integrity check says ok;
# - re-reports take the freed pages of the last report's rows: the file
#   does not grow;
# - killed (SIGKILL) at its commit, the removal of its journal: the journal
#   is hot, SQLite rolls the file back (no finding event, integrity ok), and
#   the next report stores the same findings;
# - a WAL database, where pages cannot be written, gets SQLite's inserts.
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

# Pages: the journal of db/finding_pages.c is the one made with O_EXCL.
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
	(strace -f -qq -o /dev/null -e trace=unlinkat -e inject=unlinkat:signal=KILL \
		"$m" report -q --no-html --json "$t/killed.json" "$t/pages.db"; exit $?) >/dev/null 2>&1 && fail "the report was not killed"
	[ -s "$t/pages.db-journal" ] || fail "no journal after the kill"
	assert_eq "$(q "$t/pages.db" 'PRAGMA integrity_check')" "ok" "integrity after the kill (rolled back)"
	[ ! -e "$t/pages.db-journal" ] || fail "SQLite did not play the journal back"
	assert_eq "$(q "$t/pages.db" 'SELECT COUNT(*) FROM finding_event_raw') $(q "$t/pages.db" 'SELECT COUNT(*) FROM finding_summary_raw')" \
		"0 0" "finding events and summary rows after the kill"
	"$m" report -q --no-html --json "$t/after.json" "$t/pages.db" 2>"$t/err" || fail "report after the kill: $(cat "$t/err")"
	assert_eq "$(rows "$t/pages.db")" "$want" "finding events after the kill's next report"
	cmp -s <(findings "$t/sql.json") <(findings "$t/after.json") || fail "the report after the kill differs"
	assert_eq "$(q "$t/pages.db" 'PRAGMA page_count')" "$size" "pages after the kill and a report"
else
	echo "note: strace is missing: the kill at the commit is not tried"
fi

# WAL: SQLite's inserts, the same rows.
q "$t/wal.db" 'PRAGMA journal_mode = WAL' >/dev/null
"$m" report -q --no-html --json "$t/wal.json" "$t/wal.db" 2>"$t/err" || fail "report (WAL): $(cat "$t/err")"
assert_eq "$(rows "$t/wal.db")" "$want" "finding events in a WAL database"
echo "ok: finding events as pages: the same rows as SQLite's inserts, freed pages reused, a kill rolled back"
