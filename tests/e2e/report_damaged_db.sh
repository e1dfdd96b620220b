#!/usr/bin/env bash
# report_damaged_db.sh - 'mapprof report' on databases it cannot take at
# face value (issue 13), each made from a real recording of a -g sample:
#
#   refused, exit 3, its own message, nothing written: truncated, bytes of
#   garbage in a page, an empty file, a run still 'recording', no run row,
#   a newer schema version, an SQLite file that is not mapprof's, a dropped
#   view, a write lock held past the busy timeout;
#   reported, exit 4, "incomplete recording: DETAIL" in all three outputs:
#   an incomplete run (never a bare "no inefficient data mapping found");
#   reported as if writable (report.json identical, no "build with -g"):
#   a read-only file, a read-only directory, a write lock held by another
#   process, a lock released within the busy timeout, two reports at once.
#
# Read-only for root too: chattr +i where the file system has it, else a
# read-only bind mount; skipped (77) only when neither works.
# MAPPROF_BIN overrides the mapprof binary (to show the test failing on an
# older build).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
prog=$MAPPROF_BUILD/samples/round_trip
clean_prog=$MAPPROF_BUILD/samples/well_mapped
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$prog" ] && [ -x "$clean_prog" ] || fail "no samples in '$MAPPROF_BUILD/samples' (hint: make samples)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# Undone at exit, before lib.sh's removal of the temporary directories
# (which this trap therefore repeats): immutable files, bind mounts, lockers.
immutable=() mounts=() lockers=()
cleanup() {
	local p
	for p in "${lockers[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${mounts[@]}"; do umount "$p" 2>/dev/null; done
	for p in "${immutable[@]}"; do chattr -i "$p" 2>/dev/null; done
	rm -rf "$_E2E_TMP"
}
trap cleanup EXIT

failures=0
# check COND_CMD... -- MESSAGE: count a failure (and say it) unless it holds.
check() {
	local msg=${*: -1}
	"${@:1:$#-2}" && return 0
	echo "FAIL: $msg" >&2
	failures=$((failures + 1))
	return 1
}

not() { ! "$@"; }

# report DB [OPTIONS...]: run 'mapprof report', stdout in $dir/out, stderr in
# $dir/err; print its exit status.
report() {
	local db=$1 rc=0
	shift
	"$mapprof" report "$@" "$db" >"$dir/out" 2>"$dir/err" || rc=$?
	echo "$rc"
}

"$mapprof" record -o good.db -- "$prog" >/dev/null 2>record.log || fail "record: $(cat record.log)"
"$mapprof" record -o clean.db -- "$clean_prog" >/dev/null 2>record.log || fail "record: $(cat record.log)"

# The reference: the same recording, writable.
mkdir ref && cp good.db ref/r.db
assert_eq "$(report ref/r.db -q)" 0 "report on a writable copy ($(cat err))"
jq -e '[.findings[] | .locations[0].line > 0 and (.variable.name // "") != ""] | all and length > 0' \
	ref/report.json >/dev/null || fail "the reference report has no source lines or variables"

# fresh NAME: a directory NAME holding a copy of the recording as NAME/r.db.
fresh() {
	rm -rf "$1" && mkdir "$1" && cp "${2:-good.db}" "$1/r.db"
}

# refused NAME WHAT: 'report NAME/r.db' fails with exit 3, says
# "cannot report on 'NAME/r.db': WHAT" (an extended regex), prints no
# summary and writes no report.
refused() {
	local name=$1 db=$1/r.db what=$2 rc
	shift 2
	rc=$(report "$db" "$@")
	check [ "$rc" = 3 ] -- "$db: exit status $rc, want 3 ($(head -c 300 err))"
	check grep -Eq "^mapprof: error: cannot report on '$db': $what" err -- \
		"$db: want 'cannot report on '$db': $what', got: $(head -c 400 err)"
	check grep -q "^mapprof: hint: " err -- "$db: no hint: $(head -c 300 err)"
	check [ ! -s out ] -- "$db: a summary was printed: $(head -c 200 out)"
	check [ ! -e "$name/report.json" ] -- "$db: report.json was written"
	check [ ! -e "$name/report.html" ] -- "$db: report.html was written"
}

# --- refused ---------------------------------------------------------------

fresh truncated && truncate -s 8192 truncated/r.db
refused truncated "the database is damaged: the file is truncated \\(8192 bytes.*SQLite says: .*malformed"

# Garbage over the cell pointers of data_op_raw's page (16 bytes, in the
# page after its 8-byte header): every row of the table points off the page.
fresh garbage
page=$(q garbage/r.db "PRAGMA page_size")
root=$(q garbage/r.db "SELECT rootpage FROM sqlite_schema WHERE name = 'data_op_raw'")
printf '\336\255\276\357%.0s' 1 2 3 4 |
	dd of=garbage/r.db bs=1 seek=$(((root - 1) * page + 8)) conv=notrunc status=none
refused garbage "the database is damaged: SQLite says: .*(malformed|out of range)"

fresh empty && : >empty/r.db
refused empty "the file is empty"

fresh recording && q recording/r.db "UPDATE run_raw SET status = 'recording'"
refused recording "the recording is unfinished \\(run status 'recording'\\)"

fresh norun && q norun/r.db "DELETE FROM run_raw"
refused norun "the recording is unfinished \\(it holds no run yet\\)"

fresh newer && q newer/r.db "UPDATE meta SET value = '99' WHERE key = 'schema_version'; PRAGMA user_version = 99"
refused newer "written by a newer mapprof.*schema version 99"

rm -rf other && mkdir other && sqlite3 other/r.db "CREATE TABLE samples (t INTEGER, v REAL)"
refused other "not a mapprof database"

fresh noview && q noview/r.db "DROP VIEW data_ops"
refused noview "the database is damaged: view 'data_ops' is missing"

# --check runs PRAGMA quick_check first; on a sound database it changes nothing.
fresh checked
rc=$(report checked/r.db -q --check)
check [ "$rc" = 0 ] -- "--check on a sound database: exit status $rc ($(cat err))"
check cmp -s checked/report.json ref/report.json -- "--check changed report.json"

# --- incomplete --------------------------------------------------------------

detail="the program ended before the collector could finish (killed, or _exit)"
for name in incomplete clean_incomplete; do
	if [ $name = incomplete ]; then fresh $name; else fresh $name clean.db; fi
	q $name/r.db "UPDATE run_raw SET status = 'incomplete', status_detail = '$detail'"
	rc=$(report $name/r.db)
	check [ "$rc" = 4 ] -- "$name: exit status $rc, want 4 ($(head -c 300 err))"
	check grep -qF "mapprof: incomplete recording: $detail" out -- "$name: no 'incomplete recording' in the summary: $(head -c 300 out)"
	check grep -q "the recording is incomplete" err -- "$name: no warning on stderr: $(cat err)"
	check not grep -qx "no inefficient data mapping found." out -- "$name: 'no inefficient data mapping found.' for an incomplete run"
	check [ "$(jq -r '.run.status + "|" + .run.status_detail' $name/report.json 2>/dev/null)" = "incomplete|$detail" ] -- \
		"$name: report.json: run.status/status_detail: $(jq -c .run $name/report.json 2>&1 | head -c 300)"
	check grep -qF "\"status_detail\":\"$detail\"" $name/report.html -- "$name: report.html's data has no status_detail"
	check grep -q 'id="run-status"' $name/report.html -- "$name: report.html has no status banner"
	check grep -qF "'Incomplete recording'" $name/report.html -- "$name: report.html's script writes no 'Incomplete recording' banner"
done
check grep -qF "no inefficient data mapping found in what was recorded (the recording is incomplete: $detail)." out -- \
	"clean_incomplete: no 'found in what was recorded': $(cat out)"
fresh nocollector clean.db
q nocollector/r.db "UPDATE run_raw SET status = 'no-collector', status_detail = 'the OpenMP runtime never loaded the mapprof collector'"
rc=$(report nocollector/r.db -q --no-html --no-json)
check [ "$rc" = 4 ] -- "nocollector: exit status $rc, want 4 ($(cat err))"

# --- read-only: full attribution, nothing written into the database -------

# make_readonly PATH: make PATH (a file or a directory) unwritable, even for
# root; 1 if this system cannot.
make_readonly() {
	if [ "$(id -u)" != 0 ]; then
		chmod a-w "$1"
		return 0
	fi
	if chattr +i "$1" 2>/dev/null; then
		immutable+=("$1")
		return 0
	fi
	if [ -d "$1" ] && mount --bind "$1" "$1" 2>/dev/null; then
		mounts+=("$1")
		mount -o remount,bind,ro "$1" 2>/dev/null && return 0
	fi
	return 1
}

ro_skipped=
fresh rofile
fresh rodir
if make_readonly rofile/r.db && make_readonly rodir; then
	for db in rofile/r.db rodir/r.db; do
		name=${db%%/*}
		probe=$db
		[ "$name" = rodir ] && probe=rodir/probe
		touch "$probe" 2>/dev/null && fail "$probe: still writable after make_readonly"
		rc=$(report "$db" --json "$name.json" --html "$name.html")
		check [ "$rc" = 0 ] -- "$db: exit status $rc, want 0 ($(head -c 300 err))"
		check grep -qF "mapprof: note: '$db' is read-only: findings were not stored in it" err -- \
			"$db: no note that it is read-only: $(head -c 300 err)"
		check not grep -q "build with -g" out -- "$db: 'build with -g' in the summary of a -g build"
		check cmp -s "$name.json" ref/report.json -- "$db: report.json differs from the writable case: $(diff ref/report.json "$name.json" | head -20)"
		check cmp -s "$db" good.db -- "$db: the read-only database was changed"
	done
else
	ro_skipped="cannot make a file unwritable for root here (no chattr +i, no read-only bind mount)"
fi

# --- locked ------------------------------------------------------------------

# hold DB MODE SECONDS: another process holds a lock on DB for SECONDS:
# EXCLUSIVE (nobody reads), IMMEDIATE with a write (readers may, writers wait).
hold() {
	local write=
	[ "$2" = IMMEDIATE ] && write="INSERT INTO env_raw VALUES ('LOCKER', '1');"
	rm -f "$dir/held"
	{ echo "BEGIN $2; $write SELECT 'held';"; sleep "$3"; echo "COMMIT;"; } |
		sqlite3 "$1" >"$dir/held" 2>&1 &
	lockers+=($!)
	for _ in $(seq 100); do
		grep -q held "$dir/held" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "the locker of $1 never took its lock: $(cat "$dir/held")"
}

# Released within the busy timeout: waited for, stored in the database.
fresh waited
hold waited/r.db EXCLUSIVE 2
rc=$(report waited/r.db -q)
check [ "$rc" = 0 ] -- "waited: exit status $rc, want 0 ($(head -c 300 err))"
check cmp -s waited/report.json ref/report.json -- "waited: report.json differs from the writable case"
check not grep -q "note:" err -- "waited: a note although it was stored: $(cat err)"
wait
check [ "$(q waited/r.db 'SELECT COUNT(*) > 0 FROM findings')" = 1 ] -- "waited: no findings stored"

# Held past the timeout by a writer (as a long second report would): the
# report is made from a copy, with full attribution, and says so.
fresh writer
hold writer/r.db IMMEDIATE 10
rc=$(report writer/r.db -q)
check [ "$rc" = 0 ] -- "writer: exit status $rc, want 0 ($(head -c 300 err))"
check grep -qF "mapprof: note: 'writer/r.db' is locked by another process: findings were not stored in it" err -- \
	"writer: no note that it is locked: $(head -c 300 err)"
check cmp -s writer/report.json ref/report.json -- "writer: report.json differs from the writable case: $(diff ref/report.json writer/report.json | head -20)"
kill "${lockers[-1]}" 2>/dev/null
wait

# Nobody may read it past the timeout: refused, and why.
fresh exclusive
hold exclusive/r.db EXCLUSIVE 10
refused exclusive "it is locked by another process"
kill "${lockers[-1]}" 2>/dev/null
wait

# Two reports at once: both whole.
fresh twice
"$mapprof" report -q --json twice/a.json --no-html twice/r.db 2>twice/a.err &
a=$!
"$mapprof" report -q --json twice/b.json --no-html twice/r.db 2>twice/b.err &
b=$!
wait $a
check [ $? = 0 ] -- "twice: first report failed: $(cat twice/a.err)"
wait $b
check [ $? = 0 ] -- "twice: second report failed: $(cat twice/b.err)"
for x in a b; do
	check cmp -s twice/$x.json ref/report.json -- "twice: report $x differs from the writable case: $(cat twice/$x.err)"
done

# --- exit status 3: the program's or mapprof's? --------------------------------

# 'mapprof run' passes the program's status on, and says so; mapprof's own
# errors always come with a "mapprof: error:" line.
printf 'int main(void) { return 3; }\n' >three.c
"${CC:-cc}" three.c -o three || fail "cannot build three.c"
rc=0
"$mapprof" run -o three.db -q --no-json --no-html -- ./three >/dev/null 2>err || rc=$?
check [ "$rc" = 3 ] -- "run ./three: exit status $rc, want 3 ($(cat err))"
check grep -q "^mapprof: the program exited with status 3$" err -- "run ./three: no word that 3 is the program's: $(cat err)"
check not grep -q "^mapprof: error:" err -- "run ./three: a mapprof error: $(cat err)"
check [ "$(q three.db 'SELECT exit_status FROM run')" = 3 ] -- "run ./three: run.exit_status is not 3"

[ "$failures" = 0 ] || fail "$failures checks failed"
[ -z "$ro_skipped" ] || skip "$ro_skipped (every other case passed)"
exit 0
