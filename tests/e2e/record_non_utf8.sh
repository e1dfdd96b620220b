#!/usr/bin/env bash
# record_non_utf8.sh - bytes that are not UTF-8 are kept, never dropped
# (issue 23, item 14).  A program built from a source file with a Latin-1
# name ('l\xe9.c': clang's source records carry it in every map name) runs
# with an argument in Latin-1 ('caf\xe9'), one cut UTF-8 sequence, and valid
# UTF-8 around them:
#
#   run.command is valid JSON holding every argument, each byte that is not
#   UTF-8 written as \u00XX (before: the raw byte, and report.json said
#   "command": []); report.json's command reads it as its character;
#   the round trip's variable is 'b', named from its map clause (before: its
#   address, because one bad byte made the whole map-name array unreadable),
#   and its location keeps its file ('l\u00e9.c'; before: no file at all);
#   a database recorded before (raw bytes in run_raw.command and
#   source_raw.map_names) reports the same names.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
command -v "$OMPCC" >/dev/null || skip "no compiler '$OMPCC'"
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"
src=$'l\xe9.c'
cat >"$src" <<'EOF'
#include <stdio.h>
#define N 512
int main(int argc, char **argv)
{
	int b[N], scale = 1;
	for (int j = 0; j < N; j++)
		b[j] = j;
	/* b goes out and comes back unchanged: a host->device->host round trip. */
#pragma omp target parallel for map(tofrom: b)
	for (int j = 0; j < N; j++)
		if (scale != 1)
			b[j] *= scale;
	printf("%d %d\n", argc, b[3]);
	return argv[0] == 0;
}
EOF
ompcc -g -O1 -o prog "$src" 2>build.log || fail "cannot compile '$src': $(cat build.log)"
"$mapprof" record -o run.db -- ./prog $'caf\xe9' $'\xc3\xa9t\xc3' $'\xe2\x82\xac' >out 2>record.log ||
	fail "record failed: $(cat record.log)"
grep -q "^4 3$" out || fail "the program did not run as itself: $(cat out)"

# The database: valid JSON, every byte there.
cmd=$(q run.db "SELECT command FROM run_raw")
assert_eq "$(q run.db "SELECT json_valid(command) FROM run_raw")" 1 "run.command is valid JSON ($cmd)"
assert_eq "$cmd" '["./prog","caf\u00e9","ét\u00c3","€"]' "run.command"

"$mapprof" report -q --no-html --json report.json run.db 2>report.log || fail "report failed: $(cat report.log)"
want='["./prog","café","étÃ","€"]'
assert_eq "$(jq -c .run.command report.json)" "$want" "report.json's command"
check_names() {
	local json=$1 what=$2
	jq -e '.findings | length > 0' "$json" >/dev/null || fail "$what: no finding"
	assert_eq "$(jq -r '.findings[0].variable.name // "none"' "$json")" b "$what: the round trip's variable"
	assert_eq "$(jq -r '.findings[0].variable.origin // "none"' "$json")" map-name "$what: where its name came from"
	assert_eq "$(jq -r '.findings[0].locations[0].file // "none"' "$json")" "lé.c" "$what: its file"
	assert_eq "$(jq -r '.findings[0].locations[0].line // 0' "$json")" 9 "$what: its line"
}
check_names report.json "a new recording"
echo "ok: the command and the names keep their Latin-1 bytes, as characters"

# A database recorded before: raw bytes in the command (the map names hold
# them raw in any case: clang's strings are copied as they are).
cp run.db old.db
q old.db "UPDATE run_raw SET command = CAST(X'5b222e2f70726f67222c2263616fe9225d' AS TEXT)"
q old.db "SELECT 1 FROM source_raw WHERE instr(map_names, CAST(X'e9' AS TEXT)) > 0" | grep -q 1 ||
	fail "the map names do not hold the file's raw byte: $(q old.db 'SELECT map_names FROM source_raw')"
"$mapprof" report -q --no-html --json old.json old.db 2>report.log || fail "report (old) failed: $(cat report.log)"
assert_eq "$(jq -c .run.command old.json)" '["./prog","caoé"]' "report.json's command from raw bytes"
check_names old.json "raw bytes in the database"
echo "ok"
