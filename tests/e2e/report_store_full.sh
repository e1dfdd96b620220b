#!/usr/bin/env bash
# report_store_full.sh - a report whose findings do not fit on the disk:
# the outputs are written, the database is left sound without them (its
# events intact), and the exit status says the findings were not stored
# (5, with a warning), so a CI step can tell; once there is room the next
# report stores them.  Both ways of storing a long run's finding events:
# as pages (db/pages/finding_pages.c) and SQLite's inserts.  The disk is a small
# tmpfs (needs root: skipped without it), grown afterwards with a remount.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
m=$MAPPROF_BUILD/mapprof
t=$(tmpdir)
mkdir "$t/disk"
"$MAPPROF_SRC/bench/gen_events.sh" "$t/run.db" 15000 >/dev/null 2>"$t/err" || fail "gen_events: $(cat "$t/err")"
kib=$(( $(stat -c %s "$t/run.db") / 1024 + 96 ))
mount -t tmpfs -o size=${kib}k tmpfs "$t/disk" 2>/dev/null || skip "cannot mount a tmpfs (needs root)"
trap 'umount "$t/disk" 2>/dev/null; rm -rf "$_E2E_TMP"' EXIT
events=$(q "$t/run.db" 'SELECT COUNT(*) FROM data_op_raw')
for way in pages sqlite; do
	rm -f "$t/disk/"*
	mount -o remount,size=${kib}k "$t/disk" || fail "cannot shrink the tmpfs"
	cp "$t/run.db" "$t/disk/run.db" || fail "the database does not fit on the tmpfs"
	env=; [ $way = sqlite ] && env=MAPPROF_PAGEWRITE=0
	rc=0
	env $env "$m" report -q --no-html --json "$t/out.json" "$t/disk/run.db" 2>"$t/err" || rc=$?
	assert_eq "$rc" 5 "exit status with no room for the findings ($way)"
	grep -q "mapprof: warning: .*findings" "$t/err" || fail "no warning that the findings were not stored ($way): $(cat "$t/err")"
	[ -s "$t/out.json" ] || fail "no JSON report with the disk full ($way)"
	mount -o remount,size=$((kib * 4))k "$t/disk" || fail "cannot grow the tmpfs"
	assert_eq "$(q "$t/disk/run.db" 'PRAGMA integrity_check')" ok "integrity after the full disk ($way)"
	assert_eq "$(q "$t/disk/run.db" 'SELECT COUNT(*) FROM data_op_raw')" "$events" "the events after the full disk ($way)"
	[ ! -e "$t/disk/run.db-journal" ] || fail "a journal left after SQLite opened the file ($way)"
	env $env "$m" report -q --no-html --no-json "$t/disk/run.db" 2>"$t/err" || fail "report with room ($way): $(cat "$t/err")"
	[ "$(q "$t/disk/run.db" 'SELECT COUNT(*) FROM finding_event_raw')" -gt 65536 ] || fail "no finding events stored with room ($way)"
done
echo "ok: findings that do not fit: exit 5, the database sound, stored once there is room"
