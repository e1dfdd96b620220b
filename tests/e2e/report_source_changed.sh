#!/usr/bin/env bash
# report_source_changed.sh - a source file edited after the recording is
# never quoted or patched as if it were the one that ran, and never crashes
# report (issue 23, item 9: a source shorter than the directive's line made
# report/plan/planedit.c read past its lines: a segfault).
#
# round_trip.c is copied into a temporary directory, built there with -g and
# recorded: record stores the file's size and XXH3-64 (source_file_raw).
# Then, each on a copy of the database:
#   truncated to 300 bytes (shorter than both directives' lines), and the
#   same size with other content: report ends (exit 0), warns once naming
#   the file, every location in it has "source_changed": true and a note but
#   no snippet, every plan on it has edit.source_changed, no loop, no patch;
#   cut to 42 lines (the second directive is on line 43), with the recorded
#   hashes deleted (a database recorded before them, or by recover): no
#   crash (before: strstr(NULL) in planedit.c), no snippet, no patch;
#   restored: the reference report again, snippets and patches.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
command -v "$OMPCC" >/dev/null || skip "no compiler '$OMPCC'"
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"
cp "$MAPPROF_SRC/samples/round_trip.c" . && cp round_trip.c original.c || fail "cannot copy the sample"
ompcc -g -O1 -o round_trip round_trip.c 2>build.log || fail "cannot compile: $(cat build.log)"
"$mapprof" record -o run.db -- ./round_trip >/dev/null 2>record.log || fail "record failed: $(cat record.log)"

# report NAME: report a copy of run.db as NAME/ (report.json, report.html,
# stdout in NAME/out, stderr in NAME/err), at most 20 s; fails unless exit 0.
report() {
	local rc=0
	mkdir "$1" && cp run.db "$1/r.db" || fail "cannot copy the database"
	[ -z "${2:-}" ] || q "$1/r.db" "$2"
	timeout -s KILL 20 "$mapprof" report "$1/r.db" >"$1/out" 2>"$1/err" || rc=$?
	[ "$rc" = 0 ] || fail "$1: report exited $rc: $(head -c 400 "$1/err")"
	[ -s "$1/report.html" ] || fail "$1: no report.html"
}

# The locations in round_trip.c of every finding, and the plans' edits.
locations() { jq -c '[.findings[].locations[] | select(.file == "round_trip.c")]' "$1/report.json"; }

report ref
jq -e '.plans | length >= 2' ref/report.json >/dev/null || fail "ref: fewer than two plans"
jq -e '[.plans[].edit.patch] | all' ref/report.json >/dev/null || fail "ref: a plan without a patch"
jq -e "$(printf '%s' '[.findings[].locations[] | select(.file == "round_trip.c") | .snippet and (has("source_changed") | not)] | all and length > 0')" \
	ref/report.json >/dev/null || fail "ref: a location without a snippet, or marked changed: $(locations ref)"
grep -q "changed since the recording" ref/err && fail "ref: a warning on an unchanged source: $(cat ref/err)"

# changed NAME HOW: the report in NAME/ says round_trip.c changed (HOW in its note), quotes none of it, patches nothing.
changed() {
	local n
	n=$(grep -c "^mapprof: warning: '$dir/round_trip.c': the source file changed since the recording ($2" "$1/err")
	assert_eq "$n" 1 "$1: the warning, once ($(cat "$1/err"))"
	jq -e '[.findings[].locations[] | select(.file == "round_trip.c")
		| .source_changed == true and (.source_note | test("changed since the recording")) and (has("snippet") | not)]
		| all and length > 0' "$1/report.json" >/dev/null ||
		fail "$1: a location in round_trip.c is not marked changed, or quotes it: $(locations "$1")"
	jq -e '[.plans[] | .directive.source_changed == true and .edit.source_changed == true
		and .edit.patch == null and .edit.loop == null and (.edit.text | test("Careful: the source file changed"))]
		| all and length >= 2' "$1/report.json" >/dev/null ||
		fail "$1: a plan edits the changed file: $(jq -c '[.plans[].edit]' "$1/report.json")"
	# The page's data (the same document) carries the marks its script shows ("Source not quoted: ...").
	grep -q '"source_changed":true,"source_note":"the source file changed since the recording' "$1/report.html" ||
		fail "$1: report.html's data does not say the source changed"
	assert_eq "$(q "$1/r.db" "SELECT COUNT(*) FROM source_changed WHERE path = '$dir/round_trip.c'")" 1 "$1: source_changed rows"
	assert_eq "$(q "$1/r.db" "SELECT COUNT(*) FROM snippet WHERE file = 'round_trip.c'")" 0 "$1: snippets stored of the changed file"
	echo "ok: $1: $(sed -n 's/^mapprof: warning: //p' "$1/err" | head -n 1)"
}

# No recorded hashes (a database recorded before them): a file shorter than a line still never crashes.
# The first 42 lines: the second directive (line 43) is one past the end.
head -n 42 original.c >round_trip.c
report unhashed "DROP TABLE IF EXISTS source_file_raw"
jq -e '[.findings[].locations[] | select(.file == "round_trip.c" and .line > 42) | has("snippet") | not]
	| all and length > 0' unhashed/report.json >/dev/null ||
	fail "unhashed: a snippet of a line past the file's end: $(locations unhashed)"
jq -e '[.plans[] | select(.directive.line > 42) | .edit.patch == null and .edit.loop == null] | all and length > 0' \
	unhashed/report.json >/dev/null || fail "unhashed: a plan edits a line past the file's end: $(jq -c '[.plans[].edit]' unhashed/report.json)"
echo "ok: unhashed: a directive past the source's end gives no snippet and no patch, and no crash"

head -c 300 original.c >round_trip.c
report truncated
# What record stored: this file, its size, a hash.
row=$(q run.db "SELECT bytes || '|' || length(hash) FROM source_file_raw WHERE path = '$dir/round_trip.c'")
assert_eq "$row" "$(stat -c %s original.c)|16" "source_file_raw's row for round_trip.c"
changed truncated "$(stat -c %s original.c) bytes then, 300 now"

# The same size, other content: one byte of the directive's line changed.
sed 's/#pragma omp target parallel for map(tofrom: b)/#pragma omp target parallel for map(tofrom: c)/' original.c >round_trip.c
cmp -s original.c round_trip.c && fail "the edit changed nothing"
assert_eq "$(stat -c %s round_trip.c)" "$(stat -c %s original.c)" "the edit keeps the size"
report same_size
changed same_size "the same size"

# Restored: the reference again.
cp original.c round_trip.c
report restored
cmp -s <(jq -S 'del(.run.database)' restored/report.json) <(jq -S 'del(.run.database)' ref/report.json) ||
	fail "restored: report.json differs from the reference"
echo "ok"
