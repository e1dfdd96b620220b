#!/usr/bin/env bash
# openacc_report.sh - the report of an OpenACC run recorded on host fallback
# (GCC's libgomp: constructs only, no data event, no source position, no
# variable name) shows what was recorded and says in one place what the
# runtime did not report, and never "no inefficient data mapping found":
# the terminal summary, report.json (summary.openacc, summary.not_reported,
# summary.nothing_mapped, checked against the JSON Schema when
# python3-jsonschema is here) and the data the page embeds.  An OpenMP
# sample's report says none of it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v gcc >/dev/null || skip "no gcc"
command -v jq >/dev/null || skip "no jq"
dir=$(tmpdir)
src=$MAPPROF_SRC/samples/openacc/update_loop.c
gcc -fopenacc -g -O1 "$src" -o "$dir/update_loop" 2>"$dir/cc.err" ||
	skip "gcc cannot build OpenACC programs here: $(head -1 "$dir/cc.err")"
record_prog "$dir/acc.db" "$dir/update_loop" >/dev/null
(cd "$dir" && "$MAPPROF_BUILD/mapprof" report acc.db >summary.txt 2>&1) ||
	fail "report failed: $(cat "$dir/summary.txt")"
sum=$dir/summary.txt json=$dir/report.json

# What was recorded.
grep -q '^mapprof: OpenACC: 14 events: 13 constructs, 0 launches, 0 data events (0 transfers)$' "$sum" ||
	fail "no OpenACC counts line in the summary: $(cat "$sum")"
assert_eq "$(jq -c '.summary.openacc' "$json")" \
	'{"constructs":13,"data_events":0,"events":14,"launches":0,"transfers":0}' "summary.openacc"

# What was not reported: one sentence, in the summary once, the same as report.json's.
assert_eq "$(grep -c 'Not reported by the OpenACC runtime' "$sum")" 1 "not-reported sentences in the summary"
assert_eq "$(grep 'Not reported by the OpenACC runtime' "$sum")" "$(jq -r '.summary.not_reported.text' "$json")" \
	"the summary's sentence vs. report.json's"
assert_eq "$(jq -r '[.summary.not_reported.items[].what] | join(" ")' "$json")" \
	"transfers source_positions variable_names launches event_details" "the items not reported"
assert_eq "$(jq -r '.summary.not_reported.runtime' "$json")" "libgomp.so.1" "the runtime library"

# Never "no inefficient data mapping found" of a run without transfers.
if grep -qi 'no inefficient data mapping found' "$sum"; then
	fail "the summary says no inefficient mapping of a run whose runtime reported no transfer"
fi
grep -q '^no data transfer was reported: the OpenACC runtime sent 14 events (13 constructs) and no upload or download' "$sum" ||
	fail "the summary does not end with why mapping findings do not apply: $(tail -2 "$sum")"
jq -e '.summary.nothing_mapped | startswith("No data transfer was reported")' "$json" >/dev/null ||
	fail "report.json has no summary.nothing_mapped for the OpenACC run"

# The page embeds the same document.
grep -q 'Not reported by the OpenACC runtime (libgomp.so.1)' "$dir/report.html" ||
	fail "report.html does not carry the not-reported sentence"

if "${PYTHON:-python3}" -c 'import jsonschema' 2>/dev/null; then
	"${PYTHON:-python3}" - "$json" "$MAPPROF_SRC/docs/report-json.schema.json" <<'PY' || fail "report.json fails its schema"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
else
	echo "note: python3-jsonschema missing: the schema check is left out"
fi

# An OpenMP run says none of it.
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
record_prog "$dir/omp.db" "$sample" >/dev/null
(cd "$dir" && "$MAPPROF_BUILD/mapprof" report --json omp.json --no-html omp.db >omp.txt 2>&1) ||
	fail "report failed on the OpenMP sample: $(cat "$dir/omp.txt")"
if grep -q 'OpenACC' "$dir/omp.txt" || jq -e '.summary | has("not_reported") or has("openacc")' "$dir/omp.json" >/dev/null; then
	fail "the OpenMP sample's report speaks of OpenACC"
fi
echo "ok: the OpenACC run's report says what was recorded and, once, what was not"
