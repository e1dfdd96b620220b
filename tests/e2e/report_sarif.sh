#!/usr/bin/env bash
# report_sarif.sh - 'mapprof report --sarif' on real recordings (issue 16,
# "SARIF 2.1.0 for code review"):
#
# - the log validates against the SARIF 2.1.0 schema (tests/sarif/, with
#   Debian's python3-jsonschema) and passes GitHub code scanning's checks
#   (tests/sarif/check_sarif.py); a broken log fails the same check;
# - with --source-root the file URIs are relative, with uriBaseId SRCROOT
#   given in originalUriBaseIds; without it they are absolute file:/// URIs;
# - partialFingerprints are the findings' fingerprints and the same for two
#   recordings of one program;
# - a round trip between two directives has the return as relatedLocation,
#   a duplicate its origin; level follows the savings' share of the run.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
check=$MAPPROF_SRC/tests/sarif/check_sarif.py
schema=$MAPPROF_SRC/tests/sarif/sarif-schema-2.1.0.json
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
for s in round_trip duplicate_transfer; do
	[ -x "$MAPPROF_BUILD/samples/$s" ] || fail "no sample '$s' (hint: make samples)"
done
command -v jq >/dev/null || skip "jq is not installed"
"$PYTHON" -c 'import jsonschema' 2>/dev/null ||
	skip "no python3-jsonschema for '$PYTHON' (apt-get install python3-jsonschema; make test-deps)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# validate LOG MODE: schema + GitHub checks; fail with the problems.
validate() {
	local out
	out=$("$PYTHON" "$check" "$1" "$schema" "$2" 2>&1) || fail "'$1' is not valid SARIF for GitHub: $out"
}

record() {  # record NAME SAMPLE: NAME.db, reported with SARIF both ways
	timeout 60 "$mapprof" record -o "$1.db" -- "$MAPPROF_BUILD/samples/$2" >/dev/null 2>"$1.rec.err" ||
		fail "record $2 failed: $(cat "$1.rec.err")"
	"$mapprof" report -q --no-html --json "$1.json" --sarif "$1.rel.sarif" \
		--source-root "$MAPPROF_SRC" "$1.db" 2>"$1.err" || fail "report --sarif failed: $(cat "$1.err")"
	"$mapprof" report -q --no-html --no-json --sarif "$1.abs.sarif" "$1.db" 2>"$1.err" ||
		fail "report --sarif (no source root) failed: $(cat "$1.err")"
	validate "$1.rel.sarif" --relative
	validate "$1.abs.sarif" --absolute
}

record rt1 round_trip
record rt2 round_trip
record dup duplicate_transfer

# The checks can fail: a wrong level, a missing ruleId, an absolute path.
jq '.runs[0].results[0].level = "bogus"' rt1.rel.sarif >bad1.sarif
jq 'del(.runs[0].results[0].ruleId)' rt1.rel.sarif >bad2.sarif
jq '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = "/abs/x.c"' rt1.rel.sarif >bad3.sarif
for b in bad1 bad2 bad3; do
	"$PYTHON" "$check" "$b.sarif" "$schema" --relative >/dev/null 2>&1 && fail "the check accepted the broken '$b.sarif'"
done

# Paths: relative to the source root, else absolute.
assert_eq "$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri] | unique | join(" ")' rt1.rel.sarif)" \
	"samples/round_trip.c" "URIs under --source-root"
assert_eq "$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uriBaseId] | unique | join(" ")' rt1.rel.sarif)" \
	"SRCROOT" "uriBaseId"
want_root="file://$(cd "$MAPPROF_SRC" && pwd -P)/"
assert_eq "$(jq -r '.runs[0].originalUriBaseIds.SRCROOT.uri' rt1.rel.sarif)" "$want_root" "originalUriBaseIds"
assert_eq "$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri] | unique | join(" ")' rt1.abs.sarif)" \
	"${want_root}samples/round_trip.c" "URIs without a source root"
jq -e '.runs[0] | has("originalUriBaseIds") | not' rt1.abs.sarif >/dev/null ||
	fail "originalUriBaseIds without a source root"

# One result per finding, in report.json's order, with its fingerprint, line and numbers.
assert_eq "$(jq -c '[.runs[0].results[] | [.ruleId, .partialFingerprints["mapprof/v1"],
	.locations[0].physicalLocation.region.startLine, .properties.occurrences, .properties.bytes,
	.properties.savings_ns]]' rt1.rel.sarif)" \
	"$(jq -c '[.findings[] | [.kind, .fingerprint, .locations[0].line, .occurrences, .bytes, .savings_ns]]' rt1.json)" \
	"results against report.json"
# Stable across two recordings of one program.
assert_eq "$(jq -c '[.runs[0].results[].partialFingerprints]' rt2.rel.sarif)" \
	"$(jq -c '[.runs[0].results[].partialFingerprints]' rt1.rel.sarif)" "fingerprints across recordings"
# The message names the variable, the bytes and the savings.
jq -e '.runs[0].results[0].message.text | test("^Round trip of .a. \\(device_host_device\\): 3 occurrences, 12288 bytes moved needlessly; fixing it would save [0-9.]+ [num]?s \\([0-9.]+% of the run\\)")' \
	rt1.rel.sarif >/dev/null || fail "message: $(jq -r '.runs[0].results[0].message.text' rt1.rel.sarif)"
# Level from the share of the run: >= 5% error, >= 1% warning, else note.
jq -e '.runs[0].results | all(.level == (if .properties.savings_percent >= 5 then "error"
	elif .properties.savings_percent >= 1 then "warning" else "note" end))' rt1.rel.sarif >/dev/null ||
	fail "levels do not follow the savings"
# Rules: all five, with descriptions and help.
assert_eq "$(jq -r '[.runs[0].tool.driver.rules[] | select(.shortDescription.text and .fullDescription.text and .help.text) | .id] | join(" ")' rt1.rel.sarif)" \
	"duplicate_transfer round_trip repeated_alloc unused_alloc unused_transfer" "rules"

# A duplicate points at the directive that first sent the content.
jq -e '.runs[0].results[] | select(.ruleId == "duplicate_transfer") | .relatedLocations[]
	| select(.message.text | test("first received")) | .physicalLocation.region.startLine >= 1' \
	dup.rel.sarif >/dev/null || fail "duplicate without its origin as relatedLocation"

# A round trip between two directives: the send is the location, the return related.
cat >trip.c <<'C'
#include <stdio.h>
#define N 4096
static double a[N];
int main(void)
{
	double sum = 0;
	for (int i = 0; i < N; i++)
		a[i] = i;
#pragma omp target enter data map(to: a[0:N])
#pragma omp target map(tofrom: sum)
	for (int i = 0; i < N; i++)
		sum += a[i];
#pragma omp target exit data map(from: a[0:N])
	printf("%g\n", sum);
	return 0;
}
C
compile_offload trip.c trip -g -O1
timeout 60 "$mapprof" run -q -o trip --no-html --no-json --sarif trip.sarif --source-root "$dir" -- ./trip \
	>/dev/null 2>trip.err || fail "run trip failed: $(cat trip.err)"
validate trip.sarif --relative
assert_eq "$(jq -c '[.runs[0].results[] | select(.ruleId == "round_trip") | [.locations[0].physicalLocation.artifactLocation.uri,
	.locations[0].physicalLocation.region.startLine, (.relatedLocations[] | .physicalLocation.region.startLine, .message.text)]]' trip.sarif)" \
	'[["trip.c",9,13,"the return of the round trip"]]' "round trip locations"

# Refused: a source root that is not a directory; a SARIF log that is the database.
rc=0; "$mapprof" report -q --no-json --no-html --sarif x.sarif --source-root "$dir/none" rt1.db 2>err || rc=$?
assert_eq "$rc" 2 "--source-root that does not exist"
rc=0; "$mapprof" report -q --no-json --no-html --sarif rt1.db rt1.db 2>err || rc=$?
assert_eq "$rc" 2 "--sarif onto the database"
[ "$(q rt1.db "SELECT value FROM meta WHERE key = 'format'")" = mapprof ] ||
	fail "the database was damaged by a refused --sarif"
exit 0
