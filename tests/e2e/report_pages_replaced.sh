#!/usr/bin/env bash
# report_pages_replaced.sh - 'mapprof report' of a run whose database is
# replaced (record -f -o the same path) while the report runs, in the gap
# before the finding events are written as pages (db/pages/finding_pages.c opens
# the file again there).  tests/e2e/open_gate.c holds that open until the
# new recording is in place, so the gap is hit every time.  The report must
# not write the old run's findings into the new database: the new file is
# left byte for byte as 'record' wrote it, and the report says its findings
# were not stored (exit 5).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
# The report whose open is held: LD_PRELOAD needs mapprof linked against the shared C library.
md=$MAPPROF_BUILD/tests/mapprof-dynamic
[ -x "$md" ] || fail "no '$md' (hint: make build-tools)"
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
"${CC:-cc}" -O1 -fPIC -shared "$MAPPROF_SRC/tests/e2e/open_gate.c" -o "$t/open_gate.so" -ldl ||
	fail "cannot build open_gate.c"

# An unreported run with more finding events than SQLite's inserts take (65,536).
"$MAPPROF_SRC/bench/gen_events.sh" "$t/run.db" 15000 >/dev/null 2>"$t/err" || fail "gen_events: $(cat "$t/err")"
cp "$t/run.db" "$t/sql.db"
MAPPROF_PAGEWRITE=0 "$m" report -q --no-html --no-json "$t/sql.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
[ "$(q "$t/sql.db" 'SELECT COUNT(*) FROM finding_event_raw')" -gt 65536 ] || fail "too few finding events for the pages"

# Which open of the path is the pages writer's: SQLite's own come first
# (the report's check of the file, then SQLite's connection).
cd "$t" || fail "cannot enter $t"

# replaced_during PATH NTH WHAT: report run.db with its NTH open of PATH
# held, 'record -f -o run.db' in that gap; sets rc (the report's status),
# sum and events (the new recording's cksum and events, before the report
# went on).
replaced_during() {
	local pid
	rm -f "$t/held" "$t/go"
	OPEN_GATE_PATH=$1 OPEN_GATE_NTH=$2 OPEN_GATE_HELD=$t/held OPEN_GATE_GO=$t/go \
		LD_PRELOAD=$t/open_gate.so "$md" report -q --no-html --no-json "$t/run.db" >"$t/out" 2>"$t/err" &
	pid=$!
	for _ in $(seq 600); do
		{ [ -e "$t/held" ] || ! kill -0 $pid 2>/dev/null; } && break
		sleep 0.1
	done
	[ -e "$t/held" ] || { wait $pid; fail "the report never $3: $(cat "$t/err")"; }
	"$m" record -f -o "$t/run.db" -- "$sample" >"$t/rec.out" 2>&1 || { touch "$t/go"; fail "record -f: $(cat "$t/rec.out")"; }
	sum=$(cksum <"$t/run.db")
	events=$(q "$t/run.db" 'SELECT COUNT(*) FROM data_op_raw')
	touch "$t/go"
	rc=0
	wait $pid || rc=$?
	cat "$t/err"
}

replaced_during "$t/run.db" 3 "opened '$t/run.db' a third time"
assert_eq "$rc" 5 "the report's exit status (findings not stored)"
grep -q "replaced" "$t/err" || fail "the report did not say the database was replaced"
assert_eq "$(cksum <"$t/run.db")" "$sum" "the new recording's bytes after the report"
[ ! -e "$t/run.db-journal" ] || fail "a journal was left beside the new recording"
assert_eq "$(q "$t/run.db" 'PRAGMA integrity_check')" ok "the new recording's integrity"
assert_eq "$(q "$t/run.db" 'SELECT COUNT(*) FROM finding_event_raw')" 0 "finding events in the new recording"
assert_eq "$(q "$t/run.db" 'SELECT COUNT(*) FROM data_op_raw')" "$events" "the new recording's events"
# The same, the replacement landing while the writer makes its journal
# (held at its creation, the journal's second open: SQLite's own early
# commit makes the first): the writer sees the path changed once its
# journal is made and removes it at once, so that no journal of the old
# file stands hot beside the new one while pages are written (a report
# killed in that window would roll the new file back with old pages).
cp "$t/sql.db" "$t/run.db"
q "$t/run.db" 'DELETE FROM finding_raw; DELETE FROM finding_event_raw; DELETE FROM finding_summary_raw' >/dev/null
replaced_during "$t/run.db-journal" 2 "made its journal"
assert_eq "$rc" 5 "the report's exit status (replaced while its journal was made)"
assert_eq "$(cksum <"$t/run.db")" "$sum" "the new recording's bytes (replaced while the journal was made)"
[ ! -e "$t/run.db-journal" ] || fail "a journal was left beside the new recording (replaced while it was made)"
assert_eq "$(q "$t/run.db" 'PRAGMA integrity_check')" ok "the new recording's integrity (journal race)"

# The new recording reports as its own.
"$m" report -q --no-html --no-json "$t/run.db" 2>"$t/err" || fail "report of the new recording: $(cat "$t/err")"
assert_eq "$(q "$t/run.db" 'SELECT COUNT(*) > 0 FROM finding_raw')" 1 "the new recording's findings"
echo "ok: a database replaced during its report is left as its new writer made it (exit 5)"
