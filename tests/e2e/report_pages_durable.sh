#!/usr/bin/env bash
# report_pages_durable.sh - the order of db/pages/finding_pages.c's writes, as
# SQLite's rollback journal needs it (sqlite.org/atomiccommit.html), seen
# in the report's system calls (strace -y): between the creation of its
# journal (O_EXCL) and the journal's removal (the commit),
#   the journal whole, then synced, then its directory synced,
#   then the database's pages, then the database synced,
#   then the journal removed.
# A power cut at any point then leaves either the old file (the journal is
# durable and hot) or the new one (every page durable before the journal
# goes), whatever the connection's synchronous setting (OFF in a report).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
command -v strace >/dev/null || skip "no strace (apt-get install strace): the order is read from the system calls"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
"$MAPPROF_SRC/bench/gen_events.sh" "$t/run.db" 15000 >/dev/null 2>"$t/err" || fail "gen_events: $(cat "$t/err")"
cp "$t/run.db" "$t/sql.db"
MAPPROF_PAGEWRITE=0 "$m" report -q --no-html --no-json "$t/sql.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
strace -f -qq -y -s 0 -e trace=openat,pwrite64,write,ftruncate,fdatasync,fsync,unlinkat -o "$t/st" \
	"$m" report -q --no-html --no-json "$t/run.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
order=$(awk -v db="$t/run.db" '
	index($0, "\"" db "-journal\", O_WRONLY|O_CREAT|O_EXCL") { on = 1; next }
	!on { next }
	/^[0-9]+ +unlinkat\(/ && index($0, "\"" db "-journal\"") { print "unlink"; exit }
	/(pwrite64|write|ftruncate)\(/ && index($0, db "-journal>") { print "jwrite"; next }
	/(fdatasync|fsync)\(/ && index($0, db "-journal>") { print "jsync"; next }
	/fsync\(/ && index($0, "<" dir ">") { print "dirsync"; next }
	/(pwrite64|write)\(/ && index($0, db ">") { print "dbwrite"; next }
	/(fdatasync|fsync)\(/ && index($0, db ">") { print "dbsync"; next }
' dir="$t" "$t/st" | uniq | tr '\n' ' ')
assert_eq "$order" "jwrite jsync dirsync dbwrite dbsync unlink " "the pages' writes and syncs, in order"
assert_eq "$(q "$t/run.db" 'PRAGMA integrity_check')" ok "integrity after the pages"
assert_eq "$(q "$t/run.db" 'SELECT COUNT(*), SUM(finding * 7 + seq * 13) FROM finding_event_raw')" \
	"$(q "$t/sql.db" 'SELECT COUNT(*), SUM(finding * 7 + seq * 13) FROM finding_event_raw')" "the finding events as pages"
echo "ok: the journal durable before the pages, the pages durable before the commit"
