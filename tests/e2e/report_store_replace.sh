#!/usr/bin/env bash
# report_store_replace.sh - how 'mapprof report' replaces the findings it
# stored before (db/store/findings.c): the old ones are deleted in a commit of
# their own, then the new ones written and committed at the end, when there
# are more than 65,536 old finding events (fewer: one transaction, as
# report_open_locks.sh counts).
#
# On a synthetic run of 1.8 M events (bench/gen_events.sh; 1.2 M finding
# events):
# - a second report replaces the stored rows with the same rows;
# - SQLite's journal copies none of the old findings' pages (the reason for
#   the separate commit): counted by strace;
# - a report beside a reader that keeps its lock past the busy timeout
#   stores its findings all the same;
# - a report killed (SIGKILL) once the old findings are gone leaves the
#   database without findings (no finding, no summary row: finding events
#   written as pages before them may be there, db/store/findings.h), its events
#   and its integrity as they were; the next report stores the same
#   findings again.  With strace the kill lands at the last commit, when
#   SQLite removes its journal (the findings and summary rows are in that
#   transaction, rolled back by the next reader); without it, when a reader
#   polling the database sees no findings (a window of milliseconds, tried
#   up to 12 times).
# (report_store_pages.sh: the finding events written as pages.)
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
db=$t/run.db
stored() { q "$db" 'SELECT COUNT(*) || ":" || COALESCE(SUM(seq * 7 + occurrence * 3 + finding), 0) FROM finding_event_raw'; }

"$MAPPROF_SRC/bench/gen_events.sh" "$db" 200000 >/dev/null 2>"$t/err" || fail "gen_events: $(cat "$t/err")"
"$m" report -q --no-html --json "$t/first.json" "$db" 2>"$t/err" || fail "report: $(cat "$t/err")"
first=$(stored)
ops=$(q "$db" 'SELECT COUNT(*) FROM data_op_raw')
[ "${first%%:*}" -gt 100000 ] || fail "the first report stored ${first%%:*} finding events"

# Again: replaced by the same rows; the journal holds a few pages, not the old table's.
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -y -e trace=pwrite64,write -o "$t/st" "$m" report -q --no-html --json "$t/again.json" "$db" \
		>/dev/null 2>"$t/err" || fail "report again: $(cat "$t/err")"
	journal=$(grep -c -- '-journal>' "$t/st" || true)
	pages=$(q "$db" "SELECT COUNT(*) FROM dbstat WHERE name = 'finding_event_raw'")
	echo "finding_event_raw: $pages pages; journal writes: $journal"
	# SQLite writes a page into its journal in 3 writes (number, page, checksum).
	[ "$journal" -le $((pages / 4)) ] ||
		fail "the journal was written $journal times: the old findings' pages copied into it"
else
	echo "note: strace is missing: the journal's writes are not counted"
	"$m" report -q --no-html --json "$t/again.json" "$db" 2>"$t/err" || fail "report again: $(cat "$t/err")"
fi
assert_eq "$(stored)" "$first" "the finding events after a second report"

# A reader holding its lock for 7 s: the early commit is refused after the
# busy timeout (5 s), the report goes on in its one transaction and stores
# its findings when the reader is gone (it used to end with none).
sqlite3 "$db" "BEGIN; SELECT COUNT(*) FROM finding_raw;" ".shell sleep 7" "COMMIT;" >/dev/null &
reader=$!
sleep 0.3
"$m" report -q --no-html --json "$t/read.json" "$db" 2>"$t/err" || fail "report beside a reader: $(cat "$t/err")"
wait "$reader"
assert_eq "$(stored)" "$first" "the finding events stored beside a reader"

# Killed once the old findings are deleted, while the new ones are written.
killed=0
if command -v strace >/dev/null 2>&1; then
	# SQLite removes its journal at each commit (unlink: the early one that
	# deleted the old findings, the last one), the finding events' pages at
	# theirs (unlinkat): counted on a report of the same database, then
	# killed as it removes the last.
	strace -f -qq -o "$t/ul" -P "$db-journal" -e trace=unlink "$m" report -q --no-html \
		--json "$t/count.json" "$db" >/dev/null 2>"$t/err" || fail "report counted: $(cat "$t/err")"
	commits=$(grep -c 'unlink(' "$t/ul" || true)
	[ "$commits" -ge 2 ] || fail "the report removed its journal $commits times: not its two commits"
	assert_eq "$(stored)" "$first" "the finding events after the counted report"
	rc=0
	(strace -f -qq -o /dev/null -P "$db-journal" -e trace=unlink -e inject=unlink:signal=KILL:when=$commits \
		"$m" report -q --no-html --json "$t/killed.json" "$db"; exit $?) >/dev/null 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "the report was not killed at its last commit"
	[ -e "$db-journal" ] || fail "no journal left by the report killed at its last commit"
	killed=1
fi
for try in 1 2 3 4 5 6 7 8 9 10 11 12; do
	[ "$killed" = 1 ] && break
	"$m" report -q --no-html --json "$t/killed.json" "$db" >/dev/null 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		n=$(sqlite3 -cmd '.timeout 2000' "$db" 'SELECT COUNT(*) FROM finding_raw' 2>/dev/null || echo busy)
		if [ "$n" = 0 ]; then
			kill -KILL "$pid" 2>/dev/null && killed=1
			break
		fi
		sleep 0.01
	done
	wait "$pid" 2>/dev/null
	# The SIGKILL may land after the last commit (the reader's 0 was read
	# just before it): then the store is whole, and the kill caught nothing.
	if [ "$killed" = 1 ] && [ "$(q "$db" 'SELECT COUNT(*) FROM finding_summary_raw')" != 0 ]; then
		assert_eq "$(stored)" "$first" "the finding events of a report killed after its last commit"
		killed=0
		echo "note: try $try: killed after its last commit"
		continue
	fi
	[ "$killed" = 1 ] && break
	echo "note: try $try: the report ended before it could be killed"
done
[ "$killed" = 1 ] || fail "the report was never caught between its two commits in 12 tries"
assert_eq "$(q "$db" 'SELECT COUNT(*) FROM finding_raw') $(q "$db" 'SELECT COUNT(*) FROM finding_summary_raw')" "0 0" \
	"stored findings and summary rows after the kill"
assert_eq "$(q "$db" 'SELECT COUNT(*) FROM data_op_raw')" "$ops" "events after the kill"
assert_eq "$(q "$db" 'PRAGMA integrity_check')" "ok" "integrity after the kill"
"$m" report -q --no-html --json "$t/after.json" "$db" 2>"$t/err" || fail "report after the kill: $(cat "$t/err")"
assert_eq "$(stored)" "$first" "the finding events stored by the next report"
cmp -s <(jq -S .findings "$t/first.json") <(jq -S .findings "$t/after.json") ||
	fail "the findings after the kill differ from the first report's"
echo "ok: findings replaced in place; a report killed between its commits leaves none and harms nothing"
