#!/usr/bin/env bash
# golden_samples.sh - every sample's report.json, compared with its reviewed
# expected file tests/golden/<sample>.json.
#
# Each sample is recorded for real and reported; the JSON is normalised by
# tests/golden/normalize.jq: times, addresses (ASLR), the runtime's version
# string and the program's directory are left out; samples whose threads
# race (tests/golden/unordered) also lose ids and event seqs and have their
# findings sorted by fingerprint.  Then diffed with the golden file.
#
# GOLDEN_UPDATE=1 (make golden-update) rewrites the golden files instead:
# review the diff like code.  MAPPROF_BIN overrides the mapprof binary.
. "$(dirname "$0")/lib.sh"

bin=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
golden=$MAPPROF_SRC/tests/golden
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
[ -x "$bin" ] || fail "no '$bin' (hint: make)"
dir=$(tmpdir)
status=0
for src in "$MAPPROF_SRC"/samples/*.c; do
	name=$(basename "$src" .c)
	prog=$MAPPROF_BUILD/samples/$name
	[ -x "$prog" ] || fail "no sample '$prog' (hint: make samples)"
	"$bin" record -f -o "$dir/$name.db" -- "$prog" >/dev/null 2>"$dir/$name.record.log" ||
		true   # some samples exit non-zero on purpose; the report says so
	[ -f "$dir/$name.db" ] || fail "$name: no database: $(cat "$dir/$name.record.log")"
	"$bin" report -q --no-html --json "$dir/$name.json" "$dir/$name.db" 2>"$dir/$name.report.log" ||
		fail "$name: report failed: $(cat "$dir/$name.report.log")"
	# Built with -g, every finding names its directive's file:line (from clang's
	# source record) and its variable, whatever the golden file says.
	unnamed=$(jq -r '.findings[] | select((.locations[0].file // "") == "" or (.locations[0].line // 0) <= 0
		or .locations[0].origin != "ompt-ident" or (.variable.name // "") == "") | "\(.id) \(.kind)"' \
		"$dir/$name.json")
	[ -z "$unnamed" ] || fail "$name: findings without a directive line or variable: $unnamed"
	unordered=false
	grep -qx "$name" "$golden/unordered" 2>/dev/null && unordered=true
	jq -S --argjson unordered "$unordered" -f "$golden/normalize.jq" "$dir/$name.json" \
		>"$dir/$name.norm.json" || fail "$name: cannot normalise the JSON"
	if [ -n "${GOLDEN_UPDATE:-}" ]; then
		cp "$dir/$name.norm.json" "$golden/$name.json"
		echo "updated tests/golden/$name.json"
	elif ! diff -u "$golden/$name.json" "$dir/$name.norm.json"; then
		echo "FAIL: $name: report.json differs from tests/golden/$name.json" \
			"(if the change is right: make golden-update, and review the diff)"
		status=1
	fi
done
exit $status
