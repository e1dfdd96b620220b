#!/usr/bin/env bash
# report_pages_owner.sh - a report run as root on a database another user
# owns, killed at the commit of its finding events as pages (the removal of
# db/pages/finding_pages.c's journal): the journal it leaves is the owner's, with
# the database's mode, as SQLite gives its own journals, so the owner's
# next connection rolls the file back (sqlite3 and 'mapprof report' as that
# user, through setpriv).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
command -v strace >/dev/null || skip "no strace (apt-get install strace): the kill at the commit needs it"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
[ "$(id -u)" = 0 ] || skip "not root: a report as root on another user's database needs root"
user=$(id -u nobody 2>/dev/null) || skip "no user 'nobody'"
group=$(id -g nobody)
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
as_owner() { setpriv --reuid="$user" --regid="$group" --clear-groups -- "$@"; }

chmod 755 "$_E2E_TMP" "$t"
mkdir "$t/own"
"$MAPPROF_SRC/bench/gen_events.sh" "$t/own/run.db" 15000 >/dev/null 2>"$t/err" || fail "gen_events: $(cat "$t/err")"
chown -R "$user:$group" "$t/own"
chmod 644 "$t/own/run.db"
as_owner "$m" report -q --no-html --no-json "$t/own/run.db" 2>"$t/err" || fail "report as the owner: $(cat "$t/err")"
want=$(q "$t/own/run.db" 'SELECT COUNT(*) FROM finding_event_raw')
[ "$want" -gt 65536 ] || fail "too few finding events for the pages ($want)"

# As root, killed at the journal's removal: the commit.
(umask 077; strace -f -qq -o /dev/null -e trace=unlinkat -e inject=unlinkat:signal=KILL \
	"$m" report -q --no-html --no-json "$t/own/run.db"; exit $?) >/dev/null 2>&1 && fail "the report was not killed"
[ -s "$t/own/run.db-journal" ] || fail "no journal after the kill"
assert_eq "$(stat -c '%u:%g %a' "$t/own/run.db-journal")" "$user:$group 644" "the journal's owner and mode"
assert_eq "$(as_owner sqlite3 -batch "$t/own/run.db" 'PRAGMA integrity_check; SELECT COUNT(*) FROM finding_event_raw' 2>&1 | tr '\n' ' ')" \
	"ok 0 " "the owner's sqlite3 after the kill (rolled back)"
[ ! -e "$t/own/run.db-journal" ] || fail "the owner's connection did not play the journal back"
as_owner "$m" report -q --no-html --no-json "$t/own/run.db" 2>"$t/err" || fail "report as the owner after the kill: $(cat "$t/err")"
assert_eq "$(q "$t/own/run.db" 'SELECT COUNT(*) FROM finding_event_raw')" "$want" "finding events after the owner's report"
assert_eq "$(stat -c %U "$t/own/run.db")" nobody "the database's owner"
echo "ok: a report as root killed at its commit leaves the owner a journal they roll back"
