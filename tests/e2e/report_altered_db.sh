#!/usr/bin/env bash
# report_altered_db.sh - a database is the user's input, and its schema is
# SQL that reading it runs (issue 23, item 12).  From a real recording of a
# -g sample:
#
#   read through mapprof's own views, whatever the file's say: the view
#   'devices' (read by the HTML's timeline) or 'data_ops' rewritten as an
#   endless recursive query: report, trace and diff end within 20 s, with
#   bounded memory, and report.json is the unaltered recording's;
#   refused, exit 3, "the database was altered", nothing written: a trigger
#   (it would run on report's writes), a table of the schema replaced by an
#   endless view (before, report ran it: 400 MB in 10 s and no end).
#
# MAPPROF_BIN overrides the mapprof binary (to show the test failing on an
# older build).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
prog=$MAPPROF_BUILD/samples/round_trip
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$prog" ] || fail "no '$prog' (hint: make samples)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"
limit=20
endless="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"

# timed CMD...: run CMD with stdout in out, stderr in err, at most $limit s;
# print its exit status (124: it did not end).  Its peak RSS (KiB) goes to rss.
timed() {
	local rc=0
	if [ -x /usr/bin/time ]; then
		timeout -s KILL "$limit" /usr/bin/time -o rss -f '%M' "$@" >out 2>err || rc=$?
	else
		echo 0 >rss
		timeout -s KILL "$limit" "$@" >out 2>err || rc=$?
	fi
	[ "$rc" -ne 137 ] || rc=124
	echo "$rc"
}

# bounded WHAT: the last command's peak RSS stayed under 300 MB.
bounded() {
	rss_checked >/dev/null || return 0
	local kb
	kb=$(tail -n 1 rss 2>/dev/null)
	case "$kb" in '' | *[!0-9]*) return 0 ;; esac
	[ "$kb" -lt 300000 ] || fail "$1: peak RSS $kb KiB"
}

"$mapprof" record -o good.db -- "$prog" >/dev/null 2>record.log || fail "record: $(cat record.log)"
mkdir ref && cp good.db ref/r.db
rc=$(timed "$mapprof" report -q ref/r.db)
assert_eq "$rc" 0 "report on the unaltered recording ($(cat err))"
jq -e '.findings | length > 0' ref/report.json >/dev/null || fail "the reference report has no findings"

# --- views rewritten: read through the schema's own -------------------------

for view in devices data_ops; do
	mkdir "$view" && cp good.db "$view/r.db"
	case $view in
	devices) cols="x AS device, 'evil' AS type, 0 AS init_ns, 0 AS fini_ns, 0 AS kernels, 0 AS data_ops" ;;
	data_ops) cols="x AS seq, 0 AS thread, 'to_device' AS op, 0 AS src_device, 0 AS dest_device,
		0 AS src_addr, 0 AS dest_addr, 1 AS bytes, x AS begin_ns, x AS end_ns, NULL AS hash,
		0 AS codeptr, 0 AS target_id" ;;
	esac
	q "$view/r.db" "DROP VIEW $view; CREATE VIEW $view AS $endless SELECT $cols FROM c"
	rc=$(timed "$mapprof" report -q "$view/r.db")
	[ "$rc" != 124 ] || fail "report on a database whose view '$view' never ends: still running after $limit s"
	assert_eq "$rc" 0 "report with an endless view '$view' ($(head -c 300 err))"
	bounded "report with an endless view '$view'"
	[ -s "$view/report.html" ] || fail "$view: no report.html"
	cmp -s <(jq -S 'del(.run.database)' "$view/report.json") <(jq -S 'del(.run.database)' ref/report.json) ||
		fail "$view: report.json differs from the unaltered recording's: $(diff <(jq -S . "$view/report.json") <(jq -S . ref/report.json) | head -n 10)"
	grep -q "evil" "$view/report.html" && fail "$view: the report read the file's own view"
	rc=$(timed "$mapprof" trace "$view/r.db" -o "$view/trace.json")
	[ "$rc" != 124 ] || fail "trace with an endless view '$view': still running after $limit s"
	assert_eq "$rc" 0 "trace with an endless view '$view' ($(head -c 300 err))"
	bounded "trace with an endless view '$view'"
	rc=$(timed "$mapprof" diff ref/r.db "$view/r.db")
	[ "$rc" != 124 ] || fail "diff with an endless view '$view': still running after $limit s"
	case $rc in 0 | 1) ;; *) fail "diff with an endless view '$view': exit status $rc ($(head -c 300 err))" ;; esac
	echo "ok: an endless view '$view' in the file is not run: report, trace and diff read the schema's"
done

# --- refused: SQL that would run and that mapprof never wrote ---------------

# refused NAME SQL WHAT: a copy altered by SQL is refused: exit 3,
# "the database was altered after mapprof wrote it: WHAT", a hint, nothing written.
refused() {
	local name=$1 sql=$2 what=$3 rc
	mkdir "$name" && cp good.db "$name/r.db"
	q "$name/r.db" "$sql"
	rc=$(timed "$mapprof" report "$name/r.db")
	[ "$rc" != 124 ] || fail "$name: report still running after $limit s"
	assert_eq "$rc" 3 "$name: exit status ($(head -c 300 err))"
	grep -q "^mapprof: error: cannot report on '$name/r.db': the database was altered after mapprof wrote it: $what" err ||
		fail "$name: want 'the database was altered ...: $what', got: $(head -c 400 err)"
	grep -q "^mapprof: hint: " err || fail "$name: no hint: $(head -c 300 err)"
	[ ! -s out ] || fail "$name: a summary was printed: $(head -c 200 out)"
	[ ! -e "$name/report.json" ] && [ ! -e "$name/report.html" ] || fail "$name: a report was written"
	bounded "$name"
	echo "ok: $name: refused ($(sed -n 's/^mapprof: error: //p' err | head -n 1))"
}

refused trigger "CREATE TRIGGER grow AFTER INSERT ON finding_raw BEGIN
	INSERT INTO env_raw $endless SELECT 'x', x FROM c; END" \
	"it holds a trigger ('grow')"
refused table_view "DROP TABLE device_raw; CREATE VIEW device_raw AS $endless
	SELECT x AS num, 'evil' AS type, 0 AS init_ns, 0 AS fini_ns FROM c" \
	"'device_raw' is a view, where mapprof makes a table"
refused report_table "DROP TABLE location; CREATE VIEW location AS $endless SELECT x AS codeptr FROM c" \
	"'location' is a view, where mapprof makes a table"
# Generated columns run SQL on every read (VIRTUAL) or write (STORED), and
# zeroblob() or printf() may run there with trusted_schema off: up to 1 GB a
# row (issue 23 review, item 13).
refused generated_virtual "ALTER TABLE device_raw ADD COLUMN pad BLOB
	GENERATED ALWAYS AS (zeroblob(1000000000)) VIRTUAL" \
	"'device_raw' has a generated column ('pad')"
refused generated_stored "DROP TABLE location; CREATE TABLE location (codeptr INTEGER PRIMARY KEY,
	pad TEXT GENERATED ALWAYS AS (printf('%.*c', 1000000000, 'x')) STORED)" \
	"'location' has a generated column ('pad')"

# An index expression runs on report's writes: no value mapprof makes or
# reads may be longer than 64 MiB, so this one (600 MB before) fails at once
# and the findings are not stored (exit 5: a CI step can tell); the reports
# are written.
mkdir huge_index && cp good.db huge_index/r.db
q huge_index/r.db "CREATE INDEX huge ON finding_raw (length(hex(zeroblob(200000000))))"
rc=$(timed "$mapprof" report -q huge_index/r.db)
[ "$rc" != 124 ] || fail "huge_index: report still running after $limit s"
[ "$rc" = 5 ] || fail "huge_index: exit status $rc, want 5 (findings not stored) ($(head -c 300 err))"
bounded "a 600 MB index expression"
grep -q "string or blob too big" err || fail "huge_index: the value was made: $(head -c 300 err)"
[ -s huge_index/report.json ] || fail "huge_index: no report.json"
echo "ok: an index expression's 600 MB value is refused by the length limit (exit $rc)"
echo "ok"
